/**
 * The capacity plan's arithmetic (docs/capacity.md), from the bench's per-unit figures, so the
 * table in the doc cannot drift from the inputs: `node scripts/capacity.mjs` prints the table,
 * `node scripts/capacity.mjs --write` puts it between the doc's markers, and
 * test/run/capacity.test.ts holds the doc to it. Change an input here when the bench that
 * measures it says otherwise (each names its command), then --write.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Each input: its figure, its unit, and what measures it. */
export const INPUTS = {
  cpuPerCallMs: { value: 10.7, unit: 'ms CPU per tool call', source: '`npm run bench -- hosted`: 2 cores / 187 calls/s at 20 users x 50 calls' },
  callsPerActiveUserPerMin: {
    value: 2,
    unit: 'tool calls per active user per minute',
    source: 'assumption: a call every 30 s while a user talks to the assistant',
  },
  upstreamPerCall: { value: 0.04, unit: 'YNAB requests per tool call', source: '`npm run bench -- hosted`: 2.0 upstream requests per user over 50 calls' },
  watchCpuMsPerBudget: {
    value: 25,
    unit: 'ms instance CPU per watched budget per interval (delta sync, detection, lease), all instances together',
    source: '`HOSTED_WATCH_ONLY=1 HOSTED_WATCH_BUDGETS=200 npm run bench -- hosted` (bench/hosted-watch.ts: one interval with the watchers alone)',
  },
  detectionCpuMs: { value: 24, unit: 'ms CPU per detection at 1,500 transactions (232 at 100,000)', source: '`npm run bench -- events`' },
  watchIntervalMin: { value: 15, unit: 'minutes between watcher syncs (--watch-interval)', source: 'the default' },
  requestsPerWatchedBudgetHour: {
    value: 4,
    unit: 'YNAB requests per watched budget per hour at 15 min',
    source: '`npm run bench -- events` (bench/events-watch.ts)',
  },
  redisBytesPerUser: {
    value: 59_900,
    unit: 'bytes of Redis per user, every key (copies of the demo budgets, ~1,500 transactions, columnar and brotli; 132,000 before)',
    source: '`npm run bench -- hosted` (Redis memory per user, all keys, 100 x 20)',
  },
  replicaBytesPerActiveUser: {
    value: 1.94e6,
    unit: 'bytes of replica cache per active user, on every instance',
    source: '`npm run bench -- hosted` (replica cache per instance / users)',
  },
  instanceBaseBytes: {
    value: 250e6,
    unit: 'bytes resident per instance before any user',
    source: '`npm run bench -- hosted` (instance RSS less its replica cache)',
  },
  replicaCacheMinBytes: {
    value: 512e6,
    unit: 'bytes of replica cache per instance at least (--replica-cache-mb, default 512 MB); watched copies beyond it are read from Redis again at their next sync',
    source: 'a choice: the default; at 10,000 watched the instances held 0.9-1.0 GB resident each with it (docs/capacity.md, The check)',
  },
  instanceMemoryBytes: { value: 8e9, unit: 'bytes of memory per instance', source: 'a choice: an 8 GB, 2-core instance' },
  coresPerInstance: { value: 2, unit: 'cores per instance', source: 'a choice: two cores, as the bench machine' },
  cpuTarget: { value: 0.6, unit: 'share of the cores busy at peak', source: 'a choice: headroom that held the p99 at 20 x 50 (the bench ran near 100 %)' },
  redisShardBytes: { value: 8e9, unit: 'bytes of data per Redis master', source: 'a choice: 8 GB per master, half a 16 GB node' },
  minInstances: { value: 2, unit: 'instances at least', source: 'a choice: one can fail' },
};

export const SCALES = [1_000, 10_000, 100_000];
export const ACTIVE = [0.01, 0.05];

/** What `users`, `active` of them at peak and all of them watched, need. */
export function plan(users, active, inputs = INPUTS) {
  const v = Object.fromEntries(Object.entries(inputs).map(([k, i]) => [k, i.value]));
  const activeUsers = users * active;
  const callsPerSecond = (activeUsers * v.callsPerActiveUserPerMin) / 60;
  const interactiveCores = (callsPerSecond * v.cpuPerCallMs) / 1000;
  const watchCores = (users * v.watchCpuMsPerBudget) / 1000 / (v.watchIntervalMin * 60);
  const cores = (interactiveCores + watchCores) / v.cpuTarget;
  // Round robin: every instance meets every active user, so its replica cache (--replica-cache-mb)
  // holds all their copies, and at least its default. Watched budgets' copies share that bounded
  // cache: a watch job opens a state for its sync and lets it go, and a copy evicted since is read
  // from Redis at the next sync, whose CPU `watchCpuMsPerBudget` measured with the cache full.
  // Instances enough for the cores; none when the active users' copies alone do not fit one.
  const cacheBytes = Math.max(v.replicaCacheMinBytes, activeUsers * v.replicaBytesPerActiveUser);
  const fits = v.instanceBaseBytes + cacheBytes <= v.instanceMemoryBytes;
  const instances = fits ? Math.max(v.minInstances, Math.ceil(cores / v.coresPerInstance)) : Infinity;
  const instanceBytes = v.instanceBaseBytes + cacheBytes;
  const redisBytes = users * v.redisBytesPerUser;
  const shards = Math.max(1, Math.ceil(redisBytes / v.redisShardBytes));
  const outbound = callsPerSecond * v.upstreamPerCall + (users * v.requestsPerWatchedBudgetHour * (15 / v.watchIntervalMin)) / 3600;
  return { users, active, activeUsers, callsPerSecond, interactiveCores, watchCores, cores, instances, instanceBytes, redisBytes, shards, outbound };
}

const n = (x, digits = 0) => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const gb = (bytes) => (bytes >= 1e9 ? `${n(bytes / 1e9, 1)} GB` : `${n(bytes / 1e6)} MB`);

/** The plan table's columns, and one plan's cells under them (the bench prints the same table from its own run). */
export const PLAN_COLUMNS = [
  'users (all watched)',
  'active at peak',
  'calls/s',
  'cores: calls + watchers = at 60 %',
  'instances',
  'memory per instance',
  'Redis memory',
  'Redis masters',
  'YNAB requests/s',
];

export function planCells(p, inputs = INPUTS) {
  const fits = Number.isFinite(p.instances);
  return [
    n(p.users),
    `${n(p.active * 100)} % (${n(p.activeUsers)})`,
    n(p.callsPerSecond, 1),
    `${n(p.interactiveCores, 2)} + ${n(p.watchCores, 2)} = ${n(p.cores, 1)}`,
    fits ? String(p.instances) : 'no fit (see below)',
    fits ? gb(p.instanceBytes) : `> ${gb(inputs.instanceMemoryBytes.value)}`,
    gb(p.redisBytes),
    String(p.shards),
    n(p.outbound, 1),
  ];
}

/** The doc's table, as markdown. */
export function table(inputs = INPUTS) {
  const rows = SCALES.flatMap((u) => ACTIVE.map((a) => plan(u, a, inputs)));
  return [
    `| ${PLAN_COLUMNS.join(' | ')} |`,
    `|${PLAN_COLUMNS.map(() => '---').join('|')}|`,
    ...rows.map((p) => `| ${planCells(p, inputs).join(' | ')} |`),
  ].join('\n');
}

/** The inputs, as a markdown table. */
export function inputsTable(inputs = INPUTS) {
  return [
    '| input | figure | unit | measured by |',
    '|---|---|---|---|',
    ...Object.entries(inputs).map(([k, i]) => `| \`${k}\` | ${n(i.value, i.value % 1 ? 2 : 0)} | ${i.unit} | ${i.source} |`),
  ].join('\n');
}

export const DOC = join(import.meta.dirname, '..', 'docs', 'capacity.md');

/** The doc with both generated blocks put back from the inputs. */
export function filled(text, inputs = INPUTS) {
  let out = text;
  for (const [name, body] of [
    ['capacity-inputs', inputsTable(inputs)],
    ['capacity-table', table(inputs)],
  ]) {
    const re = new RegExp(`(<!-- generated:${name} -->)[\\s\\S]*?(<!-- /generated:${name} -->)`);
    if (!re.test(out)) throw new Error(`docs/capacity.md: needs <!-- generated:${name} --> and <!-- /generated:${name} -->`);
    out = out.replace(re, (_, open, close) => `${open}\n${body}\n${close}`);
  }
  return out;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  if (process.argv.includes('--write')) writeFileSync(DOC, filled(readFileSync(DOC, 'utf8')));
  else process.stdout.write(`${inputsTable()}\n\n${table()}\n`);
}
