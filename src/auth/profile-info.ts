/**
 * What the server may know about a stored sign-in before it reads any secret: its kind and, for an
 * OAuth grant, its scope. `login` records them in `<configDir>/profiles/<profile>.json` (nothing
 * secret: no token, no client id) and `logout` removes the file. The server reads it at start, so a
 * read-only grant never lists its write tools, without touching the keychain at start (which can
 * prompt, block, or cost a D-Bus round trip). Sign-ins made before this file existed are learned
 * at the first tool call instead.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir } from '../paths.js';
import { removeFile, writeAtomic } from '../storage/safe-fs.js';
import type { Scope } from './credentials.js';

export interface ProfileInfo {
  kind: 'personal' | 'oauth';
  scope: Scope;
}

function infoPath(configDir: string, profile: string): string {
  return join(configDir, 'profiles', `${profile}.json`);
}

/** Written as every state file is: a private directory, an exclusive temp file, a rename; never through a link. */
export async function writeProfileInfo(configDir: string, profile: string, info: ProfileInfo): Promise<void> {
  ensurePrivateDir(join(configDir, 'profiles'));
  await writeAtomic(infoPath(configDir, profile), `${JSON.stringify(info)}\n`);
}

/** Removes the record (a link there is removed, never what it points at). */
export async function removeProfileInfo(configDir: string, profile: string): Promise<void> {
  await removeFile(infoPath(configDir, profile));
}

/** The recorded scope of the profile's sign-in, or undefined when nothing (readable) is recorded. */
export function storedScope(configDir: string, profile = 'default'): Scope | undefined {
  // Only names the secret store accepts (an odd one fails clearly at the first call instead).
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(profile)) return undefined;
  try {
    // Read at start, synchronously; a link there is not ours and is not followed (ELOOP: nothing recorded).
    const fd = openSync(infoPath(configDir, profile), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    let text: string;
    try {
      if (!fstatSync(fd).isFile()) return undefined;
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
    const info = JSON.parse(text) as Partial<ProfileInfo>;
    return info.scope === 'read-only' || info.scope === 'full' ? info.scope : undefined;
  } catch {
    return undefined;
  }
}
