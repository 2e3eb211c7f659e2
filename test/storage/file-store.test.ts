/**
 * The file store: the StateStore contract on real files, the state directory layout it keeps
 * (status and logout read it), and that it never follows a link where a lock goes.
 */
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStateStore } from '../../src/storage/file-store.js';
import { ledgerKey, replicaKey } from '../../src/storage/keys.js';
import { stateStoreContract } from './contract.js';

stateStoreContract('file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-store-'));
  return { a: new FileStateStore(dir), b: new FileStateStore(dir), close: async () => rmSync(dir, { recursive: true, force: true }) };
});

describe('file store layout', () => {
  it('keeps each key in the file of the same path, where status, logout and older versions look', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-store-'));
    try {
      const store = new FileStateStore(dir);
      await store.set(ledgerKey('ab12'), new TextEncoder().encode('{}'));
      await store.set(replicaKey('id9', 'budget-1'), new TextEncoder().encode('x'));
      expect(readFileSync(join(dir, 'quota', 'ab12.json'), 'utf8')).toBe('{}');
      expect(readFileSync(join(dir, 'replicas', 'id9', 'budget-1.replica'), 'utf8')).toBe('x');
      expect(store.describe(ledgerKey('ab12'))).toBe(join(dir, 'quota', 'ab12.json'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('withLock: a link or a stray file where the lock goes is removed, never followed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-store-'));
    try {
      const victim = join(dir, 'victim');
      writeFileSync(victim, 'keep');
      mkdirSync(join(dir, 'locks'), { mode: 0o700 });
      symlinkSync(victim, join(dir, 'locks', 'oauth-g1.lock'));
      writeFileSync(join(dir, 'locks', 'oauth-g2.lock'), 'stray');
      const warnings: string[] = [];
      const store = new FileStateStore(dir, { warn: (m) => warnings.push(m) });
      expect(await store.withLock('oauth-g1', async () => 'one')).toBe('one');
      expect(await store.withLock('oauth-g2', async () => 'two')).toBe('two');
      expect(readFileSync(victim, 'utf8')).toBe('keep');
      expect(lstatSync(victim).isFile()).toBe(true);
      expect(warnings.join('\n')).toContain(join(dir, 'locks', 'oauth-g1.lock'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
