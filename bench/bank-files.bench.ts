/**
 * Real bank files previewed: import_statement's preview of every file of ../shared/bank-files
 * (statements other finance projects keep as fixtures; beside the clone, as CI places it),
 * through a real MCP client on the sandbox, each file given by `path` as a local user gives it.
 * Per kind of file and for all: how many were read or refused, the median and largest time and
 * answer bytes (a file refused is measured too: its answer is the refusal). Each file is previewed
 * three times and its median kept; one preview first loads the readers, so no file pays for that.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { startSandbox } from '../src/sandbox/app.js';
import { countingClient } from './counting-client.js';
import type { BenchSection, Reporter } from './section.js';
import { kb, median, ms, timed } from './stats.js';

const DIR = resolve(import.meta.dirname, '../../shared/bank-files');
const RUNS = 3;

interface Measured {
  file: string;
  kind: string;
  refused: boolean;
  ms: number;
  bytes: number;
}

function files(): string[] {
  return readdirSync(DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => readdirSync(join(DIR, d.name)).map((f) => join(d.name, f)))
    .sort();
}

const kindOf = (file: string) => extname(file).slice(1).toLowerCase().replace('qfx', 'ofx').replace('xml', 'camt');

function summary(r: Reporter, kind: string, ms_: Measured[]): void {
  const largest = (key: 'ms' | 'bytes') => ms_.reduce((a, b) => (b[key] > a[key] ? b : a));
  r.row({
    section: 'bank-files',
    files: kind,
    count: ms_.length,
    read: ms_.filter((m) => !m.refused).length,
    refused: ms_.filter((m) => m.refused).length,
    'median time': ms(median(ms_.map((m) => m.ms))),
    'largest time': `${ms(largest('ms').ms)} (${largest('ms').file})`,
    'median answer': kb(median(ms_.map((m) => m.bytes))),
    'largest answer': `${kb(largest('bytes').bytes)} (${largest('bytes').file})`,
  });
}

export const bankFilesSection: BenchSection = {
  name: 'bank-files',
  title: 'Real bank files: import_statement previews',
  about:
    "import_statement previews of every file of ../shared/bank-files (real banks' CSV, OFX, QFX, QIF and camt files), each given by path through a real MCP client on the sandbox: per kind and for all, files read or refused, the median and largest time and answer bytes (each file the median of three previews).",
  async run(r) {
    if (!existsSync(DIR)) {
      r.note(`${DIR} is absent: nothing measured (the shared bank files sit beside the clone).`);
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-bench-bank-files-'));
    const sb = await startSandbox({ seed: 'bench-bank-files', rateLimit: 10_000_000, log: () => {} });
    const c = await countingClient(sb, dir, { localFiles: true, maxStalenessMs: 600_000 });
    try {
      const account = [...sb.state.budgets[0]!.rec.accounts.values()].find((a) => a.name === 'Everyday Checking')!.id;
      const preview = async (file: string) => {
        const [res, took] = await timed(
          async () => (await c.client.callTool({ name: 'import_statement', arguments: { account_id: account, path: join(DIR, file) } })) as any,
        );
        const bytes = Buffer.byteLength((res.content as { text?: string }[]).map((x) => x.text ?? '').join(''));
        return { refused: res.isError === true, ms: took, bytes };
      };
      const all = files();
      await preview(all[0]!); // the budget's copy and the readers load once, outside the figures
      const measured: Measured[] = [];
      for (const file of all) {
        const runs = [];
        for (let i = 0; i < RUNS; i++) runs.push(await preview(file));
        measured.push({ file, kind: kindOf(file), refused: runs[0]!.refused, ms: median(runs.map((x) => x.ms)), bytes: median(runs.map((x) => x.bytes)) });
      }
      for (const kind of [...new Set(measured.map((m) => m.kind))].sort())
        summary(
          r,
          kind,
          measured.filter((m) => m.kind === kind),
        );
      summary(r, 'all', measured);
      r.figure('preview of a real bank file: median time', ms(median(measured.map((m) => m.ms))));
      r.figure('preview of a real bank file: median answer', kb(median(measured.map((m) => m.bytes))));
      r.note('A refused file is measured too (its answer is the refusal); which files are refused depends on the readers at this commit.');
      // Times on a shared machine move with its load: say what it was.
      r.note(`Load average when measured: ${loadavg()[0]!.toFixed(1)} (1 min), on ${cpus().length} cores.`);
    } finally {
      await c.close();
      await sb.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
