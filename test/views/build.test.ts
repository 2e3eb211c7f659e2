/**
 * The built views: one self-contained HTML file per view of the table, within 300 KB, that
 * reaches for nothing outside itself, and the published package carries them where the server
 * looks (dist/views, beside the compiled server).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildViews, VIEW_LIMIT_BYTES, type BuiltView } from '../../scripts/build-views.js';
import { VIEWS } from '../../src/mcp/views/table.js';
import { REPO_ROOT } from '../helpers/cli.js';

let out: string;
let built: BuiltView[];

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'ynab-mcp-views-build-'));
  built = await buildViews(out);
});
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('npm run build:views', () => {
  it('builds one HTML file per view, each within 300 KB', () => {
    expect(built.map((v) => v.name)).toEqual(VIEWS.map((v) => v.name));
    for (const v of built) {
      expect(v.bytes, v.name).toBeLessThanOrEqual(VIEW_LIMIT_BYTES);
      expect(v.gzipBytes, v.name).toBeLessThan(v.bytes);
    }
  });

  it('inlines everything and uses no network API', () => {
    for (const v of built) {
      const html = readFileSync(v.file, 'utf8');
      expect(html, v.name).toMatch(/^<!doctype html>/);
      expect(html, v.name).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'none'`);
      // One inline script and one inline style; nothing loaded by URL.
      expect(html.match(/<script/g), v.name).toHaveLength(1);
      expect(html, v.name).not.toMatch(/<script[^>]*\ssrc=|<link\s|@import|url\(/i);
      expect(html, v.name).not.toMatch(/\bfetch\(|XMLHttpRequest|WebSocket|EventSource|sendBeacon|import\(/);
    }
  });
});

describe('the published package', () => {
  it('carries the built views in dist/views', () => {
    const pack = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(pack.status, pack.stderr).toBe(0);
    const files = (JSON.parse(pack.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    for (const v of VIEWS) expect(files, 'run "npm run build" before the tests').toContain(`dist/views/${v.name}.html`);
    expect(files).toContain('dist/mcp/views/html.js');
  });
});
