/** The snapshot check itself (test/helpers/toolsnaps.ts): a missing snapshot fails unless asked to write it. */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { savedToolsnap, ToolsnapError } from '../helpers/toolsnaps.js';

const dir = mkdtempSync(join(tmpdir(), 'toolsnaps-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tool schema snapshots', () => {
  it('fail when the snapshot is missing, and write nothing', () => {
    const file = join(dir, 'missing.json');
    expect(() => savedToolsnap(file, '{}\n', false)).toThrow(ToolsnapError);
    expect(existsSync(file)).toBe(false);
  });

  it('give the saved snapshot to compare with, unchanged', () => {
    const file = join(dir, 'tool.json');
    writeFileSync(file, '{"a":1}\n');
    expect(savedToolsnap(file, '{"a":2}\n', false)).toBe('{"a":1}\n');
    expect(readFileSync(file, 'utf8')).toBe('{"a":1}\n');
  });

  it('are written only when asked (UPDATE_TOOLSNAPS=1)', () => {
    const file = join(dir, 'new', 'tool.json');
    savedToolsnap(file, '{"b":1}\n', true);
    expect(readFileSync(file, 'utf8')).toBe('{"b":1}\n');
  });
});
