/**
 * What the built server loads before it answers its first tools/list (`node dist/cli.js serve`,
 * stdio, as a host starts it): the bundle (scripts/bundle.mjs) rather than the per-module build,
 * none of the statement parser libraries, which load with the first file a statement tool reads,
 * and none of the tools' definitions, which load with the first call. Each is a share of the cold start (bench: footprint), and each came back once unnoticed.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';

const REGISTER = join(REPO_ROOT, 'test', 'fixtures', 'load-log', 'register.mjs');
let home: string;

beforeAll(() => {
  if (!existsSync(join(REPO_ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run "npm run build" before this test');
  home = mkdtempSync(join(tmpdir(), 'ynab-mcp-cold-'));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** The module URLs `serve` loaded by the time it answered tools/list. */
async function loadedUntilToolsList(): Promise<string[]> {
  const env: NodeJS.ProcessEnv = { ...process.env, YNAB_MCP_STATE_DIR: join(home, 'state'), YNAB_MCP_CONFIG_DIR: join(home, 'config') };
  delete env.YNAB_ACCESS_TOKEN;
  const child = spawn(process.execPath, ['--import', REGISTER, join(REPO_ROOT, 'dist', 'cli.js'), 'serve'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.on('exit', (code) => reject(new Error(`serve exited (${code}) before answering tools/list: ${stderr.slice(-500)}`)));
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString('utf8');
        for (let i = out.indexOf('\n'); i >= 0; i = out.indexOf('\n')) {
          const msg = JSON.parse(out.slice(0, i)) as { id?: number };
          out = out.slice(i + 1);
          if (msg.id === 1) {
            send({ jsonrpc: '2.0', method: 'notifications/initialized' });
            send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
          } else if (msg.id === 2) resolve();
        }
      });
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cold-start test', version: '1' } },
      });
    });
    return [...stderr.matchAll(/^LOADED (\S+)$/gm)].map((m) => m[1]!);
  } finally {
    child.kill();
  }
}

it('serve answers tools/list from the bundle, without loading a statement parser or a tool definition', async () => {
  const loaded = await loadedUntilToolsList();
  const ours = loaded.filter((u) => u.includes('/dist/') && !u.includes('/node_modules/')).map((u) => u.slice(u.lastIndexOf('/dist/') + 1));
  expect(ours.length).toBeGreaterThan(1);
  // The command line and the bundle's files; none of the per-module build tsc wrote.
  expect(ours.filter((f) => f !== 'dist/cli.js' && !f.startsWith('dist/bundle/'))).toEqual([]);
  const parsers = ['csv-parse', 'csv-stringify', 'qif-ts', 'fast-xml-parser', '@centrapay/swift-parser', 'moment', 'bignumber.js'];
  expect(loaded.filter((u) => parsers.some((p) => u.includes(`/node_modules/${p}/`)))).toEqual([]);
  // The planning tools' computations load with their first call (their own bundle files).
  expect(ours.filter((f) => /\/(forecast-run|recurring-list)-/.test(f))).toEqual([]);
  // debt_payoff's computation loads with its first call (its own bundle file).
  expect(ours.filter((f) => /\/debt-payoff-run-/.test(f))).toEqual([]);
  // tools/list comes from the build's tool file alone: the definitions, and the answers, writes and
  // insights behind them, load with the first call (src/mcp/tools/cards.ts). esbuild marks each
  // module in a bundle file with a `// dist/<path>` line.
  const modules = ours
    .filter((f) => f.startsWith('dist/bundle/'))
    .flatMap((f) => [...readFileSync(join(REPO_ROOT, f), 'utf8').matchAll(/^\/\/ (dist\/\S+\.js)$/gm)].map((m) => m[1]!));
  expect(modules).toContain('dist/mcp/server.js');
  // (The write modes' policy, a page of constants, is what the server's configuration is made of.)
  const answering = /^dist\/(mcp\/tools\/(definitions|run|call)\.js|mcp\/answer\/tool-answer|writes\/(?!pipeline\/policy\.js)|insights\/|sync\/)/;
  expect(modules.filter((m) => answering.test(m))).toEqual([]);
  // Nor the operations table (call_api names the API tools from their cards), nor the webhooks'
  // code and the credentials, quota ledger and HTTP client behind it (events/subscribe loads them):
  // together they had made the code before the first tools/list 2.5 times what it was (bench: footprint).
  const unlisted = /^dist\/(api\/operations\/index|events\/webhooks|events\/webhook-send|auth\/credentials|quota\/ledger|api\/client\/transport)\.js$/;
  expect(modules.filter((m) => unlisted.test(m))).toEqual([]);
});
