/**
 * `npm run bench`: performance figures, printed as a table and saved to bench/results/latest.json.
 * Figures and ratios only; nothing here asserts a time. `npm run bench -- load` runs one section.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { answersBench } from './answers.bench.js';
import { hostedBench } from './hosted.bench.js';
import { loadBench } from './load.bench.js';
import { replicaBench } from './replica.bench.js';
import { sandboxBench } from './sandbox.bench.js';
import { stateBench } from './state.bench.js';
import { writesBench } from './writes.bench.js';
import { viewsBench } from './views.bench.js';

const sections: Record<string, (report: (row: Record<string, string | number>) => void) => Promise<void>> = {
  sandbox: sandboxBench,
  replica: replicaBench,
  load: loadBench,
  state: stateBench,
  answers: answersBench,
  writes: writesBench,
  views: viewsBench,
  hosted: hostedBench,
};

const wanted = process.argv.slice(2).filter((a) => a in sections);
const rows: Record<string, string | number>[] = [];
for (const [name, bench] of Object.entries(sections)) {
  if (wanted.length && !wanted.includes(name)) continue;
  process.stderr.write(`bench: ${name}...\n`);
  await bench((row) => {
    rows.push(row);
    process.stdout.write(`${Object.entries(row).map(([k, v]) => `${k}: ${v}`).join(' | ')}\n`);
  });
}
const dir = join(import.meta.dirname, 'results');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'latest.json'), `${JSON.stringify({ at: new Date().toISOString(), node: process.version, rows }, null, 2)}\n`);
