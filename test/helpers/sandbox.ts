/**
 * Starts a sandbox on a free port for a test file, over real HTTP, and a tiny caller for it.
 */
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/app.js';

export interface Call {
  status: number;
  headers: Headers;
  body: any;
}

export interface TestSandbox extends RunningSandbox {
  /** Calls `METHOD /v1<path>` with the full-access token (or `token`), JSON in and out. */
  call(method: string, path: string, body?: unknown, token?: string | null): Promise<Call>;
  get(path: string, token?: string | null): Promise<Call>;
}

export async function testSandbox(opts: SandboxOptions = {}): Promise<TestSandbox> {
  const sb = await startSandbox({ seed: 'test', log: () => {}, ...opts });
  const call = async (method: string, path: string, body?: unknown, token?: string | null): Promise<Call> => {
    const headers: Record<string, string> = { accept: 'application/json' };
    const bearer = token === undefined ? sb.accessToken : token;
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    let payload: string | undefined;
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await fetch(`${sb.baseUrl}${path}`, { method, headers, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Non-JSON bodies are returned as text; tests assert on them.
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
  return Object.assign(sb, { call, get: (path: string, token?: string | null) => call('GET', path, undefined, token) });
}

/**
 * Income to Ready to Assign, today, on the budget's first open on-budget checking account, written
 * straight to the sandbox (no server sees it as its own write). The demo's Ready to Assign follows
 * the day: on some days its month ends with nothing left to assign, and a test of funding or
 * assigning needs money to move whatever the day (test/rehearsal/end-to-end.test.ts, failing on
 * 2026-11-27 with Ready to Assign at $0.00).
 */
export async function giveReadyToAssign(sb: RunningSandbox, budgetId: string, milliunits: number): Promise<void> {
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${sb.baseUrl}/budgets/${budgetId}${path}`, {
      method,
      headers: { authorization: `Bearer ${sb.accessToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: any }).data;
  };
  const { category_groups } = await api('GET', '/categories');
  const rta = category_groups.flatMap((g: any) => g.categories).find((c: any) => c.name === 'Inflow: Ready to Assign');
  const { accounts } = await api('GET', '/accounts');
  const checking = accounts.find((a: any) => a.type === 'checking' && a.on_budget && !a.closed && !a.deleted);
  if (!rta || !checking) throw new Error('the budget has no Ready to Assign category or no open checking account');
  const date = new Date().toISOString().slice(0, 10);
  await api('POST', '/transactions', {
    transaction: { account_id: checking.id, date, amount: milliunits, payee_name: 'Test Bonus', category_id: rta.id, cleared: 'cleared', approved: true },
  });
}
