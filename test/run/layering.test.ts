/**
 * The layering of src/ (.dependency-cruiser.cjs, run by `npm run check:layering` and .ci/run): the
 * code as it is has no violation, and each rule the architecture depends on fails when broken. The
 * broken trees are small copies made for the test, laid out like src/ and checked with the
 * project's own configuration.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';

const run = promisify(execFile);
const DEPCRUISE = join(REPO_ROOT, 'node_modules/.bin/depcruise');

async function cruise(root: string): Promise<{ ok: boolean; output: string }> {
  try {
    const { stdout } = await run(DEPCRUISE, ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], { cwd: root });
    return { ok: true, output: stdout };
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    return { ok: false, output: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A tree with the project's configuration and the given files (path → source). */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'ynab-mcp-layering-'));
  made.push(root);
  cpSync(join(REPO_ROOT, '.dependency-cruiser.cjs'), join(root, '.dependency-cruiser.cjs'));
  writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  return root;
}

describe('the layering', () => {
  it('holds for the code as it is', async () => {
    const result = await cruise(REPO_ROOT);
    expect(result.output).toContain('no dependency violations');
    expect(result.ok).toBe(true);
  });

  const mcp = { 'src/mcp/server.ts': 'export const server = 1;\n' };
  it.each([
    ['writes', 'src/writes/pipeline/plan.ts', 'writes-insights-imports-upward'],
    ['insights', 'src/insights/core/view.ts', 'writes-insights-imports-upward'],
    ['sync', 'src/sync/replica.ts', 'sync-imports-upward'],
    ['api', 'src/api/client.ts', 'api-imports-upward'],
    ['storage', 'src/storage/store.ts', 'storage-imports-upward'],
  ])('refuses %s importing mcp/', async (_layer, file, rule) => {
    const depth = file.split('/').length - 2;
    const result = await cruise(tree({ ...mcp, [file]: `import { server } from '${'../'.repeat(depth)}mcp/server.js';\nexport const x = server;\n` }));
    expect(result.ok).toBe(false);
    expect(result.output).toContain(rule);
  });

  it('refuses sync importing writes, even for a type', async () => {
    const result = await cruise(
      tree({
        'src/writes/pipeline/plan.ts': 'export interface Plan { a: number }\n',
        'src/sync/replica.ts': "import type { Plan } from '../writes/pipeline/plan.js';\nexport type P = Plan;\n",
      }),
    );
    expect(result.ok).toBe(false);
    expect(result.output).toContain('sync-imports-writes');
  });

  it.each([
    ['the write pipeline', 'src/writes/pipeline/gate.ts', 'src/writes/transfer/transfer.ts', 'writes-pipeline-imports-capability'],
    ['the insights core', 'src/insights/core/view.ts', 'src/insights/forecast/forecast.ts', 'insights-core-imports-capability'],
  ])('refuses %s importing a capability beside it', async (_what, from, to, rule) => {
    const result = await cruise(
      tree({
        [to]: 'export const task = 1;\n',
        [from]: `import { task } from '../${to.split('/').slice(2).join('/').replace(/\.ts$/, '.js')}';\nexport const t = task;\n`,
      }),
    );
    expect(result.ok).toBe(false);
    expect(result.output).toContain(rule);
  });

  it('refuses hosted importing commands', async () => {
    const result = await cruise(
      tree({
        'src/commands/args.ts': 'export const flag = 1;\n',
        'src/hosted/options.ts': "import { flag } from '../commands/args.js';\nexport const f = flag;\n",
      }),
    );
    expect(result.ok).toBe(false);
    expect(result.output).toContain('hosted-imports-commands');
  });

  it('refuses an import cycle inside one folder', async () => {
    const result = await cruise(
      tree({
        'src/quota/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
        'src/quota/b.ts': "import type { a } from './a.js';\nexport const b = 1;\nexport type A = typeof a;\n",
      }),
    );
    expect(result.ok).toBe(false);
    expect(result.output).toContain('no-circular');
  });
});

describe('the configuration', () => {
  it('is the one the CI check runs', async () => {
    const { stdout } = await run('npm', ['pkg', 'get', 'scripts.check:layering'], { cwd: REPO_ROOT });
    expect(JSON.parse(stdout)).toBe('depcruise src --config .dependency-cruiser.cjs');
  });

  it('a copy of src/ with one upward import fails', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ynab-mcp-layering-'));
    made.push(root);
    cpSync(join(REPO_ROOT, 'src'), join(root, 'src'), { recursive: true });
    for (const f of ['.dependency-cruiser.cjs', 'tsconfig.json']) cpSync(join(REPO_ROOT, f), join(root, f));
    writeFileSync(join(root, 'src/writes/upward.ts'), "import { buildServer } from '../mcp/server.js';\nexport const b = buildServer;\n");
    const result = await cruise(root);
    expect(result.ok).toBe(false);
    expect(result.output).toContain('src/writes/upward.ts');
  });
});
