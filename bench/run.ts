/**
 * `npm run bench [-- SECTION...]`: runs the benchmark sections (all, or those named) and writes
 * bench/RESULTS.md: per section a table of figures, its key figures against their targets, and
 * when and at which commit it was measured. Sections not run this time keep their last results
 * in the file, so one section can be measured again on its own. Figures and ratios only: nothing
 * here fails on a time; the process exits 0 whatever was measured.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { regressionBlocks } from './regression.js';
import type { Reporter, Row } from './section.js';
import { SECTIONS } from './sections.js';

const RESULTS = join(import.meta.dirname, 'RESULTS.md');
// `regression` alone rewrites only the summary of the figures held (bench/regression.ts), from the file's blocks.
const onlySummary = process.argv.slice(2).join(' ') === 'regression';
const names = onlySummary ? [] : process.argv.slice(2);
const unknown = names.filter((n) => !SECTIONS.some((s) => s.name === n));
if (unknown.length) {
  process.stderr.write(`bench: no section ${unknown.join(', ')}; sections: ${SECTIONS.map((s) => s.name).join(', ')}\n`);
  process.exit(2);
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: import.meta.dirname, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}
const commit = `${git(['rev-parse', '--short=12', 'HEAD']) || 'unknown'}${git(['status', '--porcelain', '--untracked-files=no']) ? ' (with uncommitted changes)' : ''}`;
const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, ${process.platform} ${process.arch}, Node ${process.version}`;

/** Markdown tables of the rows: consecutive rows with the same columns share one table. */
function tables(rows: Row[]): string[] {
  const out: string[] = [];
  const cell = (v: string | number | undefined) => String(v ?? '').replace(/\|/g, '\\|');
  let columns: string[] = [];
  for (const row of rows) {
    const keys = Object.keys(row);
    if (keys.join('\u0000') !== columns.join('\u0000')) {
      if (out.length) out.push('');
      columns = keys;
      out.push(`| ${columns.join(' | ')} |`, `|${columns.map(() => '---').join('|')}|`);
    }
    out.push(`| ${columns.map((c) => cell(row[c])).join(' | ')} |`);
  }
  return out;
}

/** Blocks of the previous RESULTS.md, by section name. */
function previousBlocks(): Map<string, string> {
  const blocks = new Map<string, string>();
  if (!existsSync(RESULTS)) return blocks;
  for (const m of readFileSync(RESULTS, 'utf8').matchAll(/<!-- section:([\w-]+) -->\n([\s\S]*?)<!-- \/section:\1 -->\n/g)) blocks.set(m[1]!, m[0]);
  return blocks;
}

const blocks = previousBlocks();
for (const section of onlySummary ? [] : SECTIONS) {
  if (names.length && !names.includes(section.name)) continue;
  process.stderr.write(`bench: ${section.name}...\n`);
  const rows: Row[] = [];
  const figures: string[] = [];
  const notes: string[] = [];
  const report: Reporter = {
    row(values) {
      rows.push(values);
      process.stdout.write(
        `${section.name}: ${Object.entries(values)
          .map(([k, v]) => `${k}: ${v}`)
          .join(' | ')}\n`,
      );
    },
    figure(name, value, target) {
      const verdict = target ? ` (target ${target.goal}: ${target.met ? 'met' : '**not met**'})` : '';
      figures.push(`- ${name}: **${value}**${verdict}`);
      process.stdout.write(`${section.name}: ${name} = ${value}${target ? ` (target ${target.goal}: ${target.met ? 'met' : 'NOT MET'})` : ''}\n`);
    },
    note(text) {
      notes.push(text);
    },
  };
  const started = new Date();
  let failure = '';
  try {
    await section.run(report);
  } catch (e) {
    // A section that breaks is reported as such; the others still run.
    failure = `The section failed: ${(e as Error).stack ?? String(e)}`;
    process.stderr.write(`bench: ${section.name} failed: ${(e as Error).message}\n`);
  }
  const lines = [
    `<!-- section:${section.name} -->`,
    `## ${section.title}`,
    '',
    `${section.about}`,
    '',
    `Measured ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC at ${commit}, ${Math.round((Date.now() - started.getTime()) / 1000)} s (\`npm run bench -- ${section.name}\`).`,
    '',
    ...(figures.length ? [...figures, ''] : []),
    ...(rows.length ? [...tables(rows), ''] : []),
    ...notes.map((n) => `${n}\n`),
    ...(failure ? ['```', failure, '```', ''] : []),
    `<!-- /section:${section.name} -->`,
    '',
  ];
  blocks.set(section.name, lines.join('\n'));
}

const regression = regressionBlocks(blocks);
blocks.set('regression', regression.summary);
blocks.set('regression-history', regression.history);
const summaryBlocks = ['regression', 'regression-history'];

const out = [
  '# Benchmark results',
  '',
  `Written by \`npm run bench\` (bench/run.ts); each section says when and at which commit it was measured. Last run: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC at ${commit}, on ${machine}.`,
  'Figures and ratios only: no test fails on a time. Timings on a shared machine vary between runs; ratios measured in one run are the steadier figures.',
  '',
  ...summaryBlocks.map((name) => blocks.get(name)!),
  // A section's hand-written history (`<!-- section:NAME-history -->`: runs pasted by hand, before /
  // after) follows it and is kept as written: a run rewrites only the section's own block.
  ...SECTIONS.flatMap((s) => [blocks.get(s.name), blocks.get(`${s.name}-history`)]).filter((b) => b !== undefined),
  // Hand-written sections (figures measured otherwise, such as the test suite's time) are kept.
  ...[...blocks]
    .filter(([name]) => !summaryBlocks.includes(name) && !SECTIONS.some((s) => s.name === name || `${s.name}-history` === name))
    .map(([, block]) => block),
];
writeFileSync(RESULTS, out.join('\n'));
process.stderr.write(`bench: wrote ${RESULTS}\n`);
