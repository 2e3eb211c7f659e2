/**
 * A one-user server's young generation stays at 8 MB (src/commands/young-space.ts), where V8 grows it to
 * 32 MB and keeps those pages for the process's life (issue 61: 197 -> 171 MB at 100,000
 * transactions). Each case in its own process: the flag is the process's.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { YOUNG_SPACE_BYTES } from '../../src/commands/young-space.js';

const ROOT = resolve(import.meta.dirname, '../..');
const child = (mode: string) =>
  Number(execFileSync(process.execPath, ['--import', 'tsx', 'test/cli/fixtures/young-space-child.ts', mode], { cwd: ROOT, encoding: 'utf8' }).trim());

describe('young generation of a one-user server', () => {
  it('stays at 8 MB once capped, where V8 alone grows it past that', () => {
    expect(child('cap')).toBeLessThanOrEqual(YOUNG_SPACE_BYTES);
    expect(child('none')).toBeGreaterThan(YOUNG_SPACE_BYTES);
  }, 60_000);
});
