import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Temp directories created by a test file; remove them in afterEach/afterAll with cleanup(). */
export function tempDirs() {
  const dirs: string[] = [];
  const make = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-auth-'));
    dirs.push(dir);
    return dir;
  };
  return {
    make,
    /** Config and state directory paths for one CLI run, under a fresh temp directory (the CLI creates them). */
    configAndState(): { configDir: string; stateDir: string } {
      const root = make();
      return { configDir: join(root, 'config'), stateDir: join(root, 'state') };
    },
    cleanup(): void {
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A secret that cannot appear anywhere by accident. */
export function distinctiveSecret(): string {
  return `ynab-SECRET-${randomBytes(12).toString('hex')}-DO-NOT-PRINT`;
}

export function collectingWarn() {
  const messages: string[] = [];
  return { messages, warn: (m: string) => void messages.push(m) };
}
