/**
 * What the server may know about a stored sign-in before it reads any secret: its kind and, for an
 * OAuth grant, its scope. `login` records them in `<configDir>/profiles/<profile>.json` (nothing
 * secret: no token, no client id) and `logout` removes the file. The server reads it at start, so a
 * read-only grant never lists its write tools, without touching the keychain at start (which can
 * prompt, block, or cost a D-Bus round trip). Sign-ins made before this file existed are learned
 * at the first tool call instead.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir } from '../paths.js';
import type { Scope } from './credentials.js';

export interface ProfileInfo {
  kind: 'personal' | 'oauth';
  scope: Scope;
}

function infoPath(configDir: string, profile: string): string {
  return join(configDir, 'profiles', `${profile}.json`);
}

export function writeProfileInfo(configDir: string, profile: string, info: ProfileInfo): void {
  const dir = ensurePrivateDir(join(configDir, 'profiles'));
  const file = infoPath(configDir, profile);
  const tmp = join(dir, `.${profile}.${process.pid}.tmp`);
  writeFileSync(tmp, `${JSON.stringify(info)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

export function removeProfileInfo(configDir: string, profile: string): void {
  rmSync(infoPath(configDir, profile), { force: true });
}

/** The recorded scope of the profile's sign-in, or undefined when nothing (readable) is recorded. */
export function storedScope(configDir: string, profile = 'default'): Scope | undefined {
  // Only names the secret store accepts (an odd one fails clearly at the first call instead).
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(profile)) return undefined;
  try {
    const info = JSON.parse(readFileSync(infoPath(configDir, profile), 'utf8')) as Partial<ProfileInfo>;
    return info.scope === 'read-only' || info.scope === 'full' ? info.scope : undefined;
  } catch {
    return undefined;
  }
}
