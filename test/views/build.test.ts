/**
 * The built views: one self-contained HTML file per view of the table, within 300 KB, that
 * reaches for nothing outside itself, with ext-apps' App as its bridge (bundled within the limit
 * by scripts/view-bundling.ts), and the published package carries them where the server looks
 * (dist/views, beside the compiled server).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildViews, VIEW_LIMIT_BYTES, type BuiltView } from '../../scripts/build-views.js';
import { zodMembers } from '../../scripts/view-bundling.js';
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
      expect(html, v.name).toContain(
        `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'none'`,
      );
      // One inline script and one inline style; nothing loaded by URL.
      expect(html.match(/<script/g), v.name).toHaveLength(1);
      expect(html, v.name).not.toMatch(/<script[^>]*\ssrc=|<link\s/i);
      // url( in the style only: the script holds zod's .url() validator, which loads nothing.
      const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
      expect(style, v.name).not.toMatch(/@import|url\(/i);
      // Calls, not words: the bundled protocol describes "fetch/XHR/WebSocket" in a schema's text.
      expect(html, v.name).not.toMatch(/\bfetch\(|new XMLHttpRequest|new WebSocket|new EventSource|sendBeacon\(|\bimport\(/);
    }
  });
});

describe('ext-apps App in a view (scripts/view-bundling.ts)', () => {
  const appJs = join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'ext-apps', 'dist', 'src', 'app.js');

  it('is in every view, and zod comes without its other locales', () => {
    for (const v of built) {
      const html = readFileSync(v.file, 'utf8');
      // App's own method names survive minification as properties.
      for (const method of ['callServerTool', 'getHostContext', 'sendSizeChanged']) expect(html, v.name).toContain(method);
      // German is one of the locales zod's namespace would bring; English stays (zod's default).
      expect(html, v.name).not.toContain('Ungültige Eingabe');
    }
  });

  it("gives ext-apps' files the zod members they use, read from the installed file", () => {
    const members = zodMembers(appJs);
    expect(members).toEqual(expect.arrayContaining(['object', 'string', 'union']));
    expect(members).not.toContain('locales');
  });

  it('fails the build when a file uses the namespace other than as z.member, or a member zod lacks', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-zod-members-'));
    try {
      const bare = join(dir, 'bare.js');
      writeFileSync(bare, 'import{z as Q}from"zod/v4";const schema=Q.object({});export const all=Q;');
      expect(() => zodMembers(bare)).toThrow(/uses zod's namespace \(Q\) other than as Q\.member/);
      const unknown = join(dir, 'unknown.js');
      writeFileSync(unknown, 'import{z as Q}from"zod/v4";export const s=Q.notAZodMember();');
      expect(() => zodMembers(unknown)).toThrow(/z\.notAZodMember, which zod does not export/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the published package', () => {
  it('carries the built views in dist/views', () => {
    const pack = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(pack.status, pack.stderr).toBe(0);
    const files = (JSON.parse(pack.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    for (const v of VIEWS) expect(files, 'run "npm run build" before the tests').toContain(`dist/views/${v.name}.html`);
    // Their reader ships inside the bundle, which finds dist/views as dist/mcp/views/html.js would
    // (scripts/bundle.mjs); test/install/package.test.ts reads every view from an installed package.
    expect(files).toContain('dist/bundle/cli.js');
  });
});
