/**
 * `serve --rehearse`: every tool served against a private copy of one real budget (docs/rehearsal.md).
 * The copy is the budget's full export, read with the user's own token in one request
 * (`GET /budgets/{id}`, through the quota-gated client, so the request ledger counts it; a budget
 * given by name costs one more, the list that finds its id), loaded into an in-process sandbox
 * (sandbox/export/) and served from there: nothing reaches YNAB after that read.
 *
 * The copy is kept in a directory of its own, `<state dir>/rehearsal/`: the sandbox's data file
 * (sandbox.json), what the server keeps for it (server/: its undo journal, saved copy, confirm
 * tokens, under a key file of its own) and what was copied when (copy.json). The real budget's saved
 * copy and undo journal are never read or written. `--rehearse` reopens a kept copy (or takes one),
 * `--rehearse-new` discards it and takes a new one, `--rehearse-discard` discards it and ends.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import type { YnabClient } from '../api/client/client.js';
import type { BudgetReplica } from '../sync/replica.js';
import type { RehearsalSource } from '../writes/pipeline/pipeline.js';
import type { RehearsalCopy } from '../mcp/state/config.js';
import { ServerState, type Connection } from '../mcp/state/state.js';
import { stateDir } from '../paths.js';
import { UsageError, warningLine } from '../shared/cli-flags.js';
import { fileKey } from '../storage/key-file.js';
import { privateDir } from '../storage/safe-fs.js';
import { REHEARSAL_MAX_CHANGES } from '../writes/rehearsal/changes.js';
import { openServer, serverOptions, type OpenedServer, type ServerFlags } from './server-setup.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The copy's payees by id: those YNAB does not hold were made in the rehearsal (apply_rehearsal makes them by name). */
export const payeeNames = (r: BudgetReplica): Map<string, string> => new Map([...r.payees].map(([id, p]) => [id, p.name]));

/** Where the rehearsal copy is kept. */
export const rehearsalDir = (env: NodeJS.ProcessEnv): string => join(stateDir(env), 'rehearsal');

export interface OpenedRehearsal extends OpenedServer {
  copy: RehearsalCopy;
  /** Taken now (true), or a kept copy reopened. */
  taken: boolean;
}

/** `--rehearse-discard`: the kept copy removed; says what was discarded. */
export function discardRehearsal(env: NodeJS.ProcessEnv): string {
  const dir = rehearsalDir(env);
  const copy = keptCopy(dir);
  rmSync(dir, { recursive: true, force: true });
  return copy ? `ynab-mcp: discarded the rehearsal copy of ${JSON.stringify(copy.budget.name)} taken ${copy.taken_at}` : 'ynab-mcp: no rehearsal copy was kept';
}

function keptCopy(dir: string): RehearsalCopy | undefined {
  const file = join(dir, 'copy.json');
  if (!existsSync(file) || !existsSync(join(dir, 'sandbox.json'))) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as RehearsalCopy;
}

/** The budget's id: an id or "last-used" as given (no request), a name from the budget list (one request). */
async function budgetIdOf(client: YnabClient, budget: string): Promise<string> {
  if (budget === 'last-used' || UUID.test(budget)) return budget;
  const list = (await client.call('getPlans')).data.plans as { id: string; name: string }[];
  const found = list.filter((b) => b.name.toLowerCase() === budget.toLowerCase());
  if (found.length === 1) return found[0]!.id;
  throw new UsageError(
    `--budget ${JSON.stringify(budget)} ${found.length ? 'names more than one budget: give its id' : 'names no budget'}; the budgets: ${list.map((b) => `${JSON.stringify(b.name)} (${b.id})`).join(', ')}`,
  );
}

/** Reads the budget's export with the user's own token and loads it; the real server state is closed after. */
async function takeCopy(flags: ServerFlags, env: NodeJS.ProcessEnv, log: (line: string) => void) {
  const real = await openServer({ ...flags, sandbox: false }, { ...env, YNAB_MCP_SANDBOX: undefined }, false);
  try {
    const { client } = await real.state.ready();
    const id = await budgetIdOf(client, flags.budget ?? env.YNAB_BUDGET_ID?.trim() ?? 'last-used');
    const res = await client.call('getPlanById', { params: { budget_id: id } });
    const plan = res.data.plan as Record<string, any>;
    const takenAt = new Date();
    const { loadBudgetObject, loadLines } = await import('../sandbox/export/load-export.js');
    const loaded = loadBudgetObject(`the export of "${plan.name}"`, plan, res.data.server_knowledge as number, takenAt);
    for (const line of loadLines(`YNAB (${plan.id})`, loaded)) log(line.replace(/^sandbox:/, 'ynab-mcp: rehearsal:'));
    const months = (plan.months as { month: string; to_be_budgeted: number; deleted?: boolean }[]).filter((m) => !m.deleted);
    const latest = months.reduce((a, m) => (m.month > a.month ? m : a), months[0]!);
    const copy: RehearsalCopy = {
      budget: { id: plan.id, name: plan.name },
      taken_at: takenAt.toISOString(),
      server_knowledge: res.data.server_knowledge as number,
      ready_to_assign: { month: latest.month, amount: latest.to_be_budgeted },
    };
    return { loaded, copy };
  } finally {
    await real.close();
  }
}

/** The kept copy if it is of the budget asked for; --budget naming another is refused (one rehearsal is kept at a time). */
function reopened(dir: string, flags: ServerFlags): RehearsalCopy | undefined {
  const copy = keptCopy(dir);
  const asked = flags.budget;
  if (copy && asked !== undefined && asked !== copy.budget.id && asked.toLowerCase() !== copy.budget.name.toLowerCase() && asked !== 'last-used') {
    throw new UsageError(
      `a rehearsal copy of ${JSON.stringify(copy.budget.name)} taken ${copy.taken_at} is kept, not of ${JSON.stringify(asked)}: add --rehearse-new to discard it and copy ${JSON.stringify(asked)}`,
    );
  }
  return copy;
}

export async function openRehearsal(
  flags: ServerFlags & { 'rehearse-new'?: boolean },
  env: NodeJS.ProcessEnv,
  localFiles: boolean,
  log: (line: string) => void,
): Promise<OpenedRehearsal> {
  if (flags.sandbox || flags.from !== undefined || flags.seed !== undefined)
    throw new UsageError('--rehearse copies a real budget: it cannot be combined with --sandbox, --from or --seed');
  const root = stateDir(env);
  const dir = rehearsalDir(env);
  const warn = (m: string) => log(warningLine(m));
  privateDir(root, dir, warn);
  // One server at a time on the kept copy: two would each write its data file.
  const release = await lockfile.lock(dir, { realpath: false, lockfilePath: `${dir}.lock`, stale: 10_000, retries: 0, onCompromised: () => {} }).catch(() => {
    throw new UsageError(`another ynab-mcp server is rehearsing with the copy in ${dir}; stop it first`);
  });
  try {
    const kept = flags['rehearse-new'] ? undefined : reopened(dir, flags);
    const taken = kept ? undefined : await takeCopy(flags, env, log);
    if (taken) {
      // Everything of the copy before (the data file's write-ahead log too); the lock is beside the directory.
      for (const f of readdirSync(dir)) rmSync(join(dir, f), { recursive: true, force: true });
      writeFileSync(join(dir, 'copy.json'), JSON.stringify(taken.copy), { mode: 0o600 });
    }
    const copy = (kept ?? taken?.copy)!;
    const { startSandbox } = await import('../sandbox/app.js');
    const sandbox = await startSandbox({ dataFile: join(dir, 'sandbox.json'), budgets: taken && [taken.loaded.budget], log, rateLimit: 1_000_000 });
    const serverDir = privateDir(root, join(dir, 'server'), warn);
    const { config, maxStalenessMs, watch } = serverOptions({ ...flags, budget: copy.budget.id }, env, localFiles);
    config.rehearsal = copy;
    const connection: Connection = {
      credentials: { token: async () => sandbox.accessToken },
      info: { source: 'sandbox', kind: 'personal' },
      baseUrl: sandbox.baseUrl,
    };
    const keySource = fileKey(join(serverDir, 'replica.key'), warn, 'rehearsal key file');
    const state = new ServerState(config, async () => connection, {
      stateDir: serverDir,
      keySource,
      maxStalenessMs,
      watch,
      log,
      changesKept: REHEARSAL_MAX_CHANGES,
    });
    // apply_rehearsal runs on the real budget, given the copy's journal; it connects to YNAB only
    // when the apply is asked for, so nothing else reaches YNAB (docs/rehearsal.md).
    const source: RehearsalSource = {
      budgetId: copy.budget.id,
      knowledge: copy.server_knowledge,
      takenAt: copy.taken_at,
      changes: async () => (await state.ready()).changes.recent(copy.budget.id),
      limit: REHEARSAL_MAX_CHANGES,
      payees: async () => payeeNames((await (await state.ready()).service.replicas.fresh(copy.budget.id)).replica),
      scope: () => (real.state.readOnly ? 'read-only' : real.state.tokenInfo()?.scope),
    };
    const real = await openServer({ ...flags, sandbox: false, budget: copy.budget.id }, { ...env, YNAB_MCP_SANDBOX: undefined }, localFiles, undefined, {
      rehearsal: source,
    });
    state.applyState = real.state;
    return {
      state,
      sandbox,
      copy,
      taken: taken !== undefined,
      async close() {
        try {
          await state.close();
          await real.close();
          await sandbox.close();
        } finally {
          await release().catch(() => undefined);
        }
      },
    };
  } catch (e) {
    await release().catch(() => undefined);
    throw e;
  }
}
