/**
 * The "no regression" summary at the top of bench/RESULTS.md (issue 61 item 4): the figures other
 * work must not make worse, each read from the latest block of its section, with its value before.
 * Written by every `npm run bench` run (`npm run bench -- regression` writes only this), so that a
 * closing note can quote before and after. Its history block is kept by the bench, not by hand:
 * each time a watched figure's latest value (or the run that measured it) changes, a line is
 * added; the table's "before" is the line before the latest.
 */
interface Watched {
  /** The row's name in the summary. */
  label: string;
  section: string;
  /** The figure's name in its section's block, or the start of it; the first found is used (names changed over time). */
  names: string[];
  goal: string;
}

/** Declared once: the figures held, the sections that measure them. */
const WATCHED: Watched[] = [
  { label: 'requests in the 100-intent session', section: 'session', names: ['requests in the session, ours'], goal: '≤ 3' },
  { label: 'bytes to the model, ours / peer', section: 'session', names: ['bytes to the model, ours / peer'], goal: '≤ 0.50×' },
  {
    label: 'cold start to the first tools/list, ours / minimal SDK server',
    section: 'footprint',
    names: ['cold start to the first tools/list, ynab-mcp / minimal SDK server'],
    goal: '≤ 1.3×',
  },
  { label: 'hosted p99, 20 users x 50 calls, one Redis', section: 'hosted', names: ['p99 at 20 users x 50 calls, one Redis'], goal: '< 500 ms' },
  {
    label: 'hosted crowd p99, 100 x 20 at once, one Redis',
    section: 'hosted',
    names: ['crowd-only p99s at 100 users x 20 calls, one Redis: ', 'p99 at 100 users x 20 calls at once, one Redis'],
    goal: '≤ 1 s in every run',
  },
  {
    label: 'hosted crowd p99, 100 x 20 at once, Redis Cluster',
    section: 'hosted',
    names: ['crowd-only p99s at 100 users x 20 calls, Redis Cluster (3 masters): ', 'p99 at 100 users x 20 calls at once, Redis Cluster'],
    goal: '≤ 1 s in every run',
  },
  // The same crowd behind the balancer docs/hosted.md advises (bench/hosted-crowd.ts).
  {
    label: 'hosted crowd p99, 100 x 20 at once, one Redis, least-outstanding balancer',
    section: 'hosted',
    names: ['crowd-only p99s at 100 users x 20 calls, one Redis, balancer least-outstanding: '],
    goal: '≤ 1 s in every run',
  },
  {
    label: 'hosted crowd p99, 100 x 20 at once, Redis Cluster, least-outstanding balancer',
    section: 'hosted',
    names: ['crowd-only p99s at 100 users x 20 calls, Redis Cluster (3 masters), balancer least-outstanding: '],
    goal: '≤ 1 s in every run',
  },
  { label: 'peak RSS of serve at 100,000 transactions', section: 'memory', names: ['peak RSS of serve at 100,000 transactions'], goal: '≤ 180 MB' },
];

interface Reading {
  value: string;
  met: string;
  /** "2026-11-26 05:19 UTC at 44f1f7ec9e14". */
  measured: string;
}

/** A watched figure's latest reading in its section's block, if the block has it. */
function read(block: string | undefined, w: Watched): Reading | undefined {
  if (!block) return undefined;
  const measured = /^Measured (.+? UTC at \w+)/m.exec(block)?.[1] ?? 'unknown';
  for (const name of w.names) {
    for (const line of block.split('\n')) {
      if (!line.startsWith(`- ${name}`)) continue;
      const m = /^- [^*]*: \*\*(.+?)\*\*(?: \(target .*: (met|\*\*not met\*\*)\))?/.exec(line);
      if (m) return { value: m[1]!, met: m[2] ? m[2].replace(/\*/g, '') : '', measured };
    }
  }
  return undefined;
}

const HISTORY_LINE = /^- (.+?): (.+?) = \*\*(.+?)\*\*$/;
const cell = (v: string) => v.replace(/\|/g, '\\|');

/** The summary block and its history block, from the sections' blocks (and the previous history). */
export function regressionBlocks(blocks: Map<string, string>): { summary: string; history: string } {
  const history = (blocks.get('regression-history') ?? '').split('\n').filter((l) => HISTORY_LINE.test(l));
  const entries = (label: string) => history.map((l) => HISTORY_LINE.exec(l)!).filter((m) => m[2] === label);
  const rows: string[] = [];
  for (const w of WATCHED) {
    const found = read(blocks.get(w.section), w);
    const last = entries(w.label).at(-1);
    // A section run in part (e.g. HOSTED_CROWD_ONLY=1) leaves a figure out: its last value stays shown.
    const now = found ?? (last && { value: last[3]!, met: 'not in the latest run', measured: last[1]! });
    if (!now) continue;
    const line = `- ${now.measured}: ${w.label} = **${now.value}**`;
    if (found && (!last || last[0] !== line)) history.push(line);
    const before = entries(w.label).at(-2);
    rows.push(`| ${[w.label, w.section, w.goal, `**${now.value}**`, now.met, now.measured, before?.[3] ?? '', before?.[1] ?? ''].map(cell).join(' | ')} |`);
  }
  const summary = [
    '<!-- section:regression -->',
    '## No regression: the figures held',
    '',
    "Each figure's latest value in its section below and its value before (the previous run of that section that measured it), written by every `npm run bench` run (bench/regression.ts; `npm run bench -- regression` rewrites only this). Timings depend on the shared machine's load: each section's rows give theirs.",
    '',
    '| figure | section | goal | latest | met | measured | before | measured before |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    '<!-- /section:regression -->',
    '',
  ].join('\n');
  const kept = [
    '<!-- section:regression-history -->',
    '### The figures held: every value measured (kept by the bench)',
    '',
    ...history,
    '',
    '<!-- /section:regression-history -->',
    '',
  ].join('\n');
  return { summary, history: kept };
}
