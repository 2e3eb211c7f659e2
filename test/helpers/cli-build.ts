/**
 * vitest globalSetup: transpiles src/ once per run, file by file (esbuild, as tsx does on every
 * start), into a temporary tree laid out like the repository (src/ beside links to package.json,
 * node_modules and dist), so the CLI children the tests start run the current sources as plain
 * JavaScript: `node <tree>/src/cli.js` instead of `node --import tsx src/cli.ts`, the same code
 * without tsx's loader, which costs each start about 0.3 s of CPU (seconds on a busy machine).
 * Tells the workers where the tree is through CLI_SOURCE_ENV; without it (a helper used outside
 * vitest), cli.ts falls back to tsx. Nothing bundled or minified: module files, names and the
 * paths a module finds beside itself (../package.json, ../../../dist/views/) stay as in src/.
 */
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { CLI_SOURCE_ENV, REPO_ROOT } from './cli.js';

export default async function setup(): Promise<() => void> {
  const tree = mkdtempSync(join(tmpdir(), 'ynab-mcp-test-src-'));
  const src = join(REPO_ROOT, 'src');
  const entryPoints = readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => join(src, f));
  await build({
    entryPoints,
    outdir: join(tree, 'src'),
    outbase: src,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node}`,
    tsconfig: join(REPO_ROOT, 'tsconfig.json'),
    logLevel: 'error',
  });
  for (const name of ['package.json', 'node_modules', 'dist']) symlinkSync(join(REPO_ROOT, name), join(tree, name));
  process.env[CLI_SOURCE_ENV] = join(tree, 'src', 'cli.js');
  return () => rmSync(tree, { recursive: true, force: true });
}
