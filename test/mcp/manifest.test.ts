/**
 * The MCPB manifest for desktop hosts: generated from the tool definitions (so the committed file
 * must equal what `npm run manifest` writes), and valid for the official mcpb CLI.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { manifest } from '../../scripts/manifest.js';

const root = join(import.meta.dirname, '..', '..');

it('matches the tool definitions (run npm run manifest after changing tools)', () => {
  expect(JSON.parse(readFileSync(join(root, 'manifest.json'), 'utf8'))).toEqual(manifest());
});

it("passes the mcpb CLI's validation", () => {
  const out = execFileSync(join(root, 'node_modules', '.bin', 'mcpb'), ['validate', join(root, 'manifest.json')], { encoding: 'utf8' });
  expect(out).toMatch(/validation passes/);
});
