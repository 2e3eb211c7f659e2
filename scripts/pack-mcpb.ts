/**
 * `npm run pack:mcpb [-- --out FILE]`: builds the MCPB bundle for desktop hosts from production
 * dependencies only, in a staging directory (the repository's own dist/ and node_modules are not
 * used, so nothing stale or dev-only can slip in):
 *  1. compile src/ into the stage; copy package.json, package-lock.json, the manifest (as
 *     scripts/manifest.ts makes it), LICENSE, README.md, the icon and .mcpbignore;
 *  2. `npm ci --omit=dev` there, then write the tools' JSON Schemas (scripts/tool-schemas.mjs)
 *     and build the views (scripts/build-views.ts);
 *  3. add the OS keychain binaries of the other platforms the manifest claims (npm installs only
 *     this machine's), fetched with `npm pack` at the version @napi-rs/keyring asks for;
 *  4. `mcpb pack`, which leaves out what .mcpbignore lists (hosted-mode and CLI-only packages,
 *     type declarations, CommonJS twins of ESM builds), and check the size: at most 8 MB.
 * Writes pack/ynab-mcp-<version>.mcpb unless --out says otherwise; prints its path on stdout.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildViews } from './build-views.js';
import { MCPB_MAX_MB } from './check-docs.js';
import { KEYCHAIN_PLATFORMS, manifest } from './manifest.js';

const root = join(import.meta.dirname, '..');
const MAX_BYTES = MCPB_MAX_MB * 1024 * 1024;
const win = process.platform === 'win32';
const npm = win ? 'npm.cmd' : 'npm';

const { values } = parseArgs({ options: { out: { type: 'string' }, keep: { type: 'boolean' } } });
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const out = resolve(values.out ?? join(root, 'pack', `ynab-mcp-${pkg.version}.mcpb`));
const log = (line: string) => process.stderr.write(`pack:mcpb: ${line}\n`);

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' },
    shell: win,
  });
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) n += e.isDirectory() ? dirBytes(join(dir, e.name)) : statSync(join(dir, e.name)).size;
  return n;
}

/** Removes the per-module build the bundle replaced: its .js files, but for dist/cli.js and dist/bundle/. */
function dropUnbundled(dist: string): void {
  for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (!entry.isFile() || !entry.name.endsWith('.js') || path === join(dist, 'cli.js') || path.startsWith(join(dist, 'bundle'))) continue;
    rmSync(path);
  }
}

const work = mkdtempSync(join(tmpdir(), 'ynab-mcp-mcpb-'));
const stage = join(work, 'ynab-mcp');
try {
  mkdirSync(stage);
  log(`staging in ${stage}`);
  run(
    process.execPath,
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json'), '--outDir', join(stage, 'dist')],
    root,
  );
  for (const file of ['package.json', 'package-lock.json', 'LICENSE', 'README.md', '.mcpbignore', join('assets', 'icon.png')]) {
    mkdirSync(dirname(join(stage, file)), { recursive: true });
    copyFileSync(join(root, file), join(stage, file));
  }
  writeFileSync(join(stage, 'manifest.json'), `${JSON.stringify(manifest(), null, 2)}\n`);

  log('npm ci --omit=dev');
  run(npm, ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], stage);
  // The tools' JSON Schemas, made from the staged build (with the staged dependencies), and the views.
  run(process.execPath, [join(root, 'scripts', 'tool-schemas.mjs'), join(stage, 'dist')], root);
  // The server bundled (scripts/bundle.mjs); the per-module build it was made from is then unused.
  run(process.execPath, [join(root, 'scripts', 'bundle.mjs'), join(stage, 'dist')], root);
  dropUnbundled(join(stage, 'dist'));
  await buildViews(join(stage, 'dist', 'views'));

  const keyring = JSON.parse(readFileSync(join(stage, 'node_modules', '@napi-rs', 'keyring', 'package.json'), 'utf8')) as {
    optionalDependencies: Record<string, string>;
  };
  const downloads = join(work, 'downloads');
  mkdirSync(downloads);
  for (const platform of KEYCHAIN_PLATFORMS) {
    const name = `@napi-rs/keyring-${platform}`;
    const target = join(stage, 'node_modules', '@napi-rs', `keyring-${platform}`);
    if (existsSync(target)) continue;
    const version = keyring.optionalDependencies[name];
    if (!version) throw new Error(`@napi-rs/keyring does not list ${name}; update KEYCHAIN_PLATFORMS in scripts/manifest.ts`);
    log(`fetching ${name}@${version}`);
    const [packed] = JSON.parse(run(npm, ['pack', `${name}@${version}`, '--json', '--prefer-offline', '--pack-destination', downloads], downloads)) as [
      { filename: string },
    ];
    mkdirSync(target, { recursive: true });
    run('tar', ['-xzf', join(downloads, packed.filename), '-C', target, '--strip-components=1'], downloads);
  }
  log(`staged: ${(dirBytes(stage) / 1e6).toFixed(1)} MB unpacked`);

  mkdirSync(dirname(out), { recursive: true });
  rmSync(out, { force: true });
  run(process.execPath, [join(root, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js'), 'pack', stage, out], root);
  const size = statSync(out).size;
  log(`${out}: ${(size / 1024 / 1024).toFixed(2)} MB (limit ${MCPB_MAX_MB} MB)`);
  if (size > MAX_BYTES)
    throw new Error(`the bundle is ${(size / 1024 / 1024).toFixed(2)} MB, over the ${MCPB_MAX_MB} MB limit: see what .mcpbignore leaves in`);
  process.stdout.write(`${out}\n`);
} finally {
  if (values.keep) log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
