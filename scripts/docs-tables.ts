/**
 * The tables the README and docs/tools.md show about the tools, generated from the tool
 * definitions as a client lists them (`npm run docs`), so that they can never drift from the
 * server: which tools each toolset holds; what the definitions cost in tools/list for each
 * selection, `--writes` mode and client that shows views, next to the budgets a test holds them
 * to (test/helpers/tools-list.ts); every tool with its size, as `ynab-mcp tools` counts it; and
 * the answer vocabulary (docs/vocabulary.md, from src/mcp/output/vocabulary.ts).
 * Each table sits between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->` in its file;
 * test/run/docs.test.ts fails when the committed text differs from what this writes.
 * Counts in prose, in the README and in docs/, are written as `<!-- count:NAME -->N` (COUNTS), and
 * rewritten here the same way; scripts/check-docs.ts finds a count written without its marker.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPERATIONS } from '../src/api/operations/index.js';
import { TOOL_DEFINITIONS } from '../src/mcp/tools/definitions.js';
import { VOCABULARY } from '../src/mcp/output/vocabulary.js';
import { BANK_LAYOUTS } from '../src/statements/bank-layouts.js';
import { MCP_TOOLSETS, REHEARSAL_ONLY } from '../src/mcp/tools/toolsets.js';
import { VIEWS } from '../src/mcp/views/table.js';
import { EVENT_NAMES } from '../src/events/catalog.js';
import { REPLICA_OPERATIONS } from '../src/sync/replica-reads.js';
import { bytes, DEFINITION_BUDGETS, listed } from '../test/helpers/tools-list.js';
import { markdownUnder } from './check-docs.js';

const root = join(import.meta.dirname, '..');

/** Which generated tables each file holds. */
export const GENERATED: Readonly<Record<string, readonly string[]>> = {
  'README.md': ['toolsets', 'definition-sizes'],
  'docs/tools.md': ['tools'],
  'docs/vocabulary.md': ['vocabulary'],
};

type Listed = { name: string; inputSchema: { properties?: Record<string, unknown> } };

const grouped = (n: number) => n.toLocaleString('en-US');
const code = (s: string) => `\`${s}\``;
const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
const table = (head: string[], rows: (string | number)[][]) => [row(head), row(head.map(() => '---')), ...rows.map(row)].join('\n');
const kindOf = new Map(TOOL_DEFINITIONS.map((t) => [t.name, t.kind]));
const names = (tools: Listed[]) => tools.map((t) => code(t.name)).join(', ');

/** Toolsets with their read and write tools, and the core profile. */
async function toolsetsTable(): Promise<string> {
  const access = new Map(TOOL_DEFINITIONS.map((t) => [t.name, t.access]));
  const rows: string[][] = [];
  for (const set of [...MCP_TOOLSETS, 'default', 'core'] as const) {
    const profile = set === 'core' || set === 'default';
    // list_budgets is offered under every selection; it is listed under its own toolset only.
    const tools = ((await listed(set)) as Listed[]).filter((t) => set === 'budgets' || profile || t.name !== 'list_budgets');
    const label = profile ? `${code(set)} (a profile)` : code(set);
    // call_api (the profiles') runs reads and writes: listed with the writes.
    rows.push([label, names(tools.filter((t) => access.get(t.name) === 'read')), names(tools.filter((t) => access.get(t.name) !== 'read'))]);
  }
  return table(['Toolset', 'Reads', 'Writes'], rows);
}

/** The four ways a selection can be listed: `--writes` direct or confirm, views or not. */
const MODES = [
  { writes: 'direct', ui: false },
  { writes: 'confirm', ui: false },
  { writes: 'direct', ui: true },
  { writes: 'confirm', ui: true },
] as const;

interface Selection {
  label: string;
  toolsets?: string;
  only?: 'api' | 'task';
  budget?: number;
}

// A tool offered only with a rehearsal to apply (REHEARSAL_ONLY) is in no list these count.
const ofKind = (kind: string) => TOOL_DEFINITIONS.filter((t) => t.kind === kind && !REHEARSAL_ONLY.has(t.name)).length;

/** The counts prose states, by the name of their `<!-- count:NAME -->` marker. */
export const COUNTS: Readonly<Record<string, number>> = {
  'api-tools': ofKind('api'),
  'api-operations': OPERATIONS.length,
  'insight-tools': ofKind('insight'),
  'task-tools': ofKind('task'),
  'bank-layouts': BANK_LAYOUTS.length,
  views: VIEWS.length,
  'event-types': EVENT_NAMES.length,
  'replica-operations': REPLICA_OPERATIONS.size,
  toolsets: MCP_TOOLSETS.length,
};

/** The task-shaped tools (their table's rows), the alerts tool's toolset included. */
const TASK_COUNT = ofKind('task');

const SELECTIONS: Selection[] = [
  { label: `the ${COUNTS['api-tools']} API tools`, only: 'api', toolsets: 'all', budget: DEFINITION_BUDGETS.api },
  { label: `the ${TASK_COUNT} task tools`, only: 'task', toolsets: 'all' },
  { label: 'default (a few tools and `call_api`)', budget: DEFINITION_BUDGETS.all },
  { label: '`all` (one tool per operation)', toolsets: 'all' },
  { label: code('core'), toolsets: 'core', budget: DEFINITION_BUDGETS.core },
  { label: code('insights'), toolsets: 'insights' },
];

/** Bytes of tools/list per selection and mode, against the budgets. */
async function sizesTable(): Promise<string> {
  const rows: (string | number)[][] = [];
  for (const s of SELECTIONS) {
    const lists = [];
    for (const m of MODES) {
      const tools = (await listed(s.toolsets, false, m.ui, m.writes)) as Listed[];
      lists.push(s.only ? tools.filter((t) => kindOf.get(t.name) === s.only) : tools);
    }
    rows.push([s.label, lists[0]!.length, ...lists.map((l) => grouped(bytes(l))), s.budget ? grouped(s.budget) : '']);
  }
  const head = ['Selection', 'Tools', '`tools/list` bytes', 'with `--writes confirm`', 'with views', 'with both', 'Budget (a test fails above it)'];
  return table(head, rows);
}

/** Every tool: what it is, where it belongs, in which modes it takes confirm_token, and its size. */
async function toolsTable(): Promise<string> {
  const all = (await listed('all')) as Listed[];
  const core = new Set(((await listed('core')) as Listed[]).map((t) => t.name));
  const holds = new Map<string, string[]>();
  for (const writes of ['direct', 'confirm']) {
    for (const t of (await listed('all', false, false, writes)) as Listed[])
      if (t.inputSchema.properties?.confirm_token) holds.set(t.name, [...(holds.get(t.name) ?? []), writes]);
  }
  const defs = new Map(TOOL_DEFINITIONS.map((t) => [t.name, t]));
  const rows = all.map((t) => {
    const d = defs.get(t.name)!;
    return [code(t.name), d.title, code(d.toolset), d.kind, d.access, core.has(t.name) ? 'yes' : '', (holds.get(t.name) ?? []).join(', '), grouped(bytes(t))];
  });
  return table(['Tool', 'Title', 'Toolset', 'Kind', 'Access', 'In `core`', '`confirm_token` with `--writes`', 'Bytes'], rows);
}

/** The answer vocabulary (src/mcp/output/vocabulary.ts): every field name, its kind and meaning. */
async function vocabularyTable(): Promise<string> {
  const rows = Object.entries(VOCABULARY)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, t]) => {
      const kind = `${t.kind}${t.keys ? ` (keyed by ${t.keys})` : ''}`;
      return [code(name), kind, `${t.meaning}${t.api ? ' Full answers of API tools only.' : ''}`.replaceAll('|', '\\|')];
    });
  return table(['Field', 'Kind', 'Meaning'], rows);
}

const BUILDERS: Record<string, () => Promise<string>> = {
  toolsets: toolsetsTable,
  'definition-sizes': sizesTable,
  tools: toolsTable,
  vocabulary: vocabularyTable,
};

/** Every table, by name. */
export async function generatedTables(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, build] of Object.entries(BUILDERS)) out[name] = await build();
  return out;
}

/** `text` with each named table put between its markers; a missing or repeated marker is an error naming it. */
export function fillTables(file: string, text: string, tables: Record<string, string>): string {
  let out = text;
  for (const name of GENERATED[file] ?? []) {
    const open = `<!-- generated:${name} -->`;
    const close = `<!-- /generated:${name} -->`;
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start < 0 || end < start || out.indexOf(open, start + 1) >= 0) throw new Error(`${file}: needs exactly one ${open} … ${close}`);
    out = `${out.slice(0, start + open.length)}\n${tables[name]}\n${out.slice(end)}`;
  }
  return out;
}

/** `text` with the number after each `<!-- count:NAME -->` made COUNTS[NAME]; an unknown name is an error. */
export function fillCounts(file: string, text: string): string {
  return text.replace(/(<!-- count:([a-z-]+) -->)\d+/g, (_, marker: string, name: string) => {
    const n = COUNTS[name];
    if (n === undefined) throw new Error(`${file}: no count named ${name} (counts: ${Object.keys(COUNTS).join(', ')})`);
    return `${marker}${n}`;
  });
}

/** The files `npm run docs` writes: those with generated tables, and every document under docs/ (its counts). */
const writtenFiles = () => [...new Set([...Object.keys(GENERATED), ...markdownUnder(root, 'docs')])];

/** Each file's text as `npm run docs` would write it. */
export async function generatedDocs(): Promise<Record<string, { current: string; generated: string }>> {
  const tables = await generatedTables();
  const out: Record<string, { current: string; generated: string }> = {};
  for (const file of writtenFiles()) {
    const current = readFileSync(join(root, file), 'utf8');
    out[file] = { current, generated: fillCounts(file, fillTables(file, current, tables)) };
  }
  return out;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  for (const [file, { current, generated }] of Object.entries(await generatedDocs())) {
    if (current === generated) continue;
    writeFileSync(join(root, file), generated);
    process.stderr.write(`docs: wrote ${file}\n`);
  }
}
