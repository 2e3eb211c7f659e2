/**
 * `--data FILE` through the real CLI: a round trip across restarts (tokens, writes, OAuth grants,
 * server knowledge and deltas all survive), atomic 0600 writes without leftovers, saves shortly
 * after each change (a kill -9 loses nothing once saved), corrupt files refused and left
 * byte-for-byte untouched, and a failing save that does not bring the service down.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAllCli, runCli, startCli, type Announcement } from './cli-process.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-persist-'));
});

afterAll(async () => {
  await killAllCli();
  rmSync(dir, { recursive: true, force: true });
});

async function call(a: Announcement, method: string, path: string, body?: unknown, token = a.access_token) {
  const res = await fetch(`${a.base_url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}

const today = () => new Date().toISOString().slice(0, 10);

/** Bounded polling for something that happens on its own (a save after a write). */
async function until(what: string, check: () => boolean, ms = 5_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const leftovers = (d: string) => readdirSync(d).filter((f) => f.includes('.tmp'));

describe('round trip', () => {
  it('keeps tokens, writes, OAuth grants and server knowledge across a restart', async () => {
    const file = join(dir, 'round-trip.json');
    const first = startCli(['sandbox', '--port', '0', '--seed', 'persist', '--data', file]);
    const a = await first.announcement;
    // The file exists as soon as the sandbox is listening.
    expect(existsSync(file)).toBe(true);
    const budget = (await call(a, 'GET', '/budgets')).body.data.budgets[0].id;
    const b = `/budgets/${budget}`;
    const k0 = (await call(a, 'GET', `${b}/accounts`)).body.data.server_knowledge as number;
    const account = (await call(a, 'GET', `${b}/accounts`)).body.data.accounts.find((x: any) => x.type === 'checking' && !x.closed);

    const payee = await call(a, 'POST', `${b}/payees`, { payee: { name: 'Persisted Payee' } });
    expect(payee.status).toBe(201);
    const created = await call(a, 'POST', `${b}/transactions`, {
      transaction: { account_id: account.id, date: today(), amount: -42_420, payee_id: payee.body.data.payee.id, memo: 'persisted memo' },
    });
    expect(created.status).toBe(201);
    const txn = created.body.data.transaction;
    const k1 = created.body.data.server_knowledge as number;
    expect(k1).toBe(k0 + 2);

    // An OAuth grant made before the restart.
    const redirect = 'http://127.0.0.1:9/cb';
    const auth = await fetch(
      `${a.app_url}/oauth/authorize?${new URLSearchParams({ client_id: a.oauth_client_id, redirect_uri: redirect, response_type: 'code' })}`,
      { redirect: 'manual' },
    );
    const code = new URL(auth.headers.get('location')!).searchParams.get('code')!;
    const tokenRes = await fetch(`${a.app_url}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        client_id: a.oauth_client_id,
        client_secret: a.oauth_client_secret,
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirect,
      }),
    });
    const oauth = (await tokenRes.json()) as { access_token: string; refresh_token: string };
    expect((await call(a, 'GET', '/user', undefined, oauth.access_token)).status).toBe(200);

    expect((await first.stop('SIGTERM')).code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(leftovers(dir)).toEqual([]);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved.format).toBe('ynab-mcp-sandbox');
    expect(first.stderr).not.toContain(a.access_token);

    // Restart with the same file: same tokens, same data, knowledge continues.
    const second = startCli(['sandbox', '--port', '0', '--seed', 'other-seed-ignored', '--data', file]);
    const a2 = await second.announcement;
    expect(a2.access_token).toBe(a.access_token);
    expect(a2.read_only_token).toBe(a.read_only_token);
    expect(a2.oauth_client_id).toBe(a.oauth_client_id);
    expect(a2.oauth_client_secret).toBe(a.oauth_client_secret);
    expect((await call(a2, 'GET', '/budgets')).body.data.budgets[0].id).toBe(budget);

    const again = await call(a2, 'GET', `${b}/transactions/${txn.id}`);
    expect(again.status).toBe(200);
    expect(again.body.data.transaction).toEqual(txn);
    expect((await call(a2, 'GET', `${b}/payees/${payee.body.data.payee.id}`)).body.data.payee.name).toBe('Persisted Payee');
    expect((await call(a2, 'GET', `${b}/accounts`)).body.data.server_knowledge).toBe(k1);

    // A delta from before the writes still works, and the next write continues the count.
    const delta = await call(a2, 'GET', `${b}/transactions?last_knowledge_of_server=${k0}`);
    expect(delta.body.data.server_knowledge).toBe(k1);
    expect(delta.body.data.transactions.map((t: any) => t.id)).toEqual([txn.id]);
    const payeeDelta = await call(a2, 'GET', `${b}/payees?last_knowledge_of_server=${k0}`);
    expect(payeeDelta.body.data.payees.map((p: any) => p.id)).toContain(payee.body.data.payee.id);
    expect((await call(a2, 'GET', `${b}/transactions?last_knowledge_of_server=${k1}`)).body.data.transactions).toEqual([]);
    const next = await call(a2, 'PUT', `${b}/transactions/${txn.id}`, { transaction: { memo: 'edited after restart' } });
    expect(next.status).toBe(200);
    expect(next.body.data.server_knowledge).toBe(k1 + 1);

    // The OAuth grant survived: the access token works and the refresh token can be exchanged.
    expect((await call(a2, 'GET', '/user', undefined, oauth.access_token)).status).toBe(200);
    const refreshed = await fetch(`${a2.app_url}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        client_id: a.oauth_client_id,
        client_secret: a.oauth_client_secret,
        grant_type: 'refresh_token',
        refresh_token: oauth.refresh_token,
      }),
    });
    expect(refreshed.status).toBe(200);
    expect((await second.stop('SIGINT')).code).toBe(0);

    // --token overrides the saved token; the read-only token and the data stay.
    const third = startCli(['sandbox', '--port', '0', '--data', file, '--token', 'override-token-1']);
    const a3 = await third.announcement;
    expect(a3.access_token).toBe('override-token-1');
    expect(a3.read_only_token).toBe(a.read_only_token);
    expect((await call(a3, 'GET', '/user', undefined, a.access_token)).status).toBe(401);
    expect((await call(a3, 'GET', `${b}/transactions/${txn.id}`)).body.data.transaction.memo).toBe('edited after restart');
    expect((await call(a3, 'GET', `${b}/transactions/${txn.id}`, undefined, a.read_only_token)).status).toBe(200);
    expect((await third.stop()).code).toBe(0);
    expect(leftovers(dir)).toEqual([]);
  });

  it('saves shortly after a write, not only at exit: kill -9 loses nothing once saved', async () => {
    const file = join(dir, 'kill.json');
    const p = startCli(['sandbox', '--port', '0', '--data', file]);
    const a = await p.announcement;
    const before = readFileSync(file, 'utf8');
    const res = await call(a, 'POST', '/budgets/last-used/payees', { payee: { name: 'Saved Before Kill' } });
    expect(res.status).toBe(201);
    const id = res.body.data.payee.id as string;
    // The save comes on its own within about a second of the write.
    await until('the write to reach the file', () => readFileSync(file, 'utf8').includes(id), 3_000);
    expect(readFileSync(file, 'utf8')).not.toBe(before);
    expect((await p.stop('SIGKILL')).signal).toBe('SIGKILL');
    expect(leftovers(dir)).toEqual([]);

    const q = startCli(['sandbox', '--port', '0', '--data', file]);
    const b = await q.announcement;
    expect(b.access_token).toBe(a.access_token);
    const payee = await call(b, 'GET', `/budgets/last-used/payees/${id}`);
    expect(payee.status).toBe(200);
    expect(payee.body.data.payee.name).toBe('Saved Before Kill');
    expect((await q.stop()).code).toBe(0);
  });

  it('saves OAuth grants and revocations when they happen, before any API use', async () => {
    const file = join(dir, 'oauth.json');
    const p = startCli(['sandbox', '--port', '0', '--data', file]);
    const a = await p.announcement;
    const implicit = async () => {
      const res = await fetch(
        `${a.app_url}/oauth/authorize?${new URLSearchParams({ client_id: a.oauth_client_id, redirect_uri: 'http://127.0.0.1:9/cb', response_type: 'token' })}`,
        { redirect: 'manual' },
      );
      return new URLSearchParams(new URL(res.headers.get('location')!).hash.slice(1)).get('access_token')!;
    };
    const kept = await implicit();
    const revoked = await implicit();
    await until('the grants to reach the file', () => readFileSync(file, 'utf8').includes(revoked));
    const revoke = await fetch(`${a.app_url}/oauth/revoke`, {
      method: 'POST',
      body: new URLSearchParams({ client_id: a.oauth_client_id, client_secret: a.oauth_client_secret, token: revoked }),
    });
    expect(revoke.status).toBe(200);
    await until('the revocation to reach the file', () => {
      const grants = JSON.parse(readFileSync(file, 'utf8')).oauth.grants as { access_token: string; revoked: boolean }[];
      return grants.some((g) => g.access_token === revoked && g.revoked);
    });
    await p.stop('SIGKILL');

    const q = startCli(['sandbox', '--port', '0', '--data', file]);
    const b = await q.announcement;
    expect((await call(b, 'GET', '/user', undefined, kept)).status).toBe(200);
    expect((await call(b, 'GET', '/user', undefined, revoked)).status).toBe(401);
    expect((await q.stop()).code).toBe(0);
  });

  it('keeps serving when a save fails, says so on stderr, and saves again once it can', async () => {
    const sub = join(dir, 'vanishing');
    mkdirSync(sub);
    const file = join(sub, 'data.json');
    const p = startCli(['sandbox', '--port', '0', '--data', file]);
    const a = await p.announcement;
    rmSync(sub, { recursive: true });
    expect((await call(a, 'POST', '/budgets/last-used/payees', { payee: { name: 'Unsaved' } })).status).toBe(201);
    await until('the save error on stderr', () => /cannot save sandbox data/.test(p.stderr));
    expect(p.stderr).toContain(file);
    expect(p.stderr).not.toContain(a.access_token);
    expect((await call(a, 'GET', '/user')).status).toBe(200);
    // The directory is back: the next change saves everything, the earlier write included.
    mkdirSync(sub);
    expect((await call(a, 'POST', '/budgets/last-used/payees', { payee: { name: 'Saved Later' } })).status).toBe(201);
    await until('the file to come back', () => existsSync(file) && readFileSync(file, 'utf8').includes('Saved Later'));
    expect(readFileSync(file, 'utf8')).toContain('Unsaved');
    expect((await p.stop()).code).toBe(0);
  });
});

describe('corrupt files', () => {
  // A real data file to damage, written by a short-lived sandbox.
  const valid = () => join(dir, 'valid-source.json');

  beforeAll(async () => {
    const p = startCli(['sandbox', '--port', '0', '--data', valid()]);
    await p.announcement;
    expect((await p.stop()).code).toBe(0);
  });

  const cases: [string, () => Buffer][] = [
    ['garbage bytes', () => Buffer.from([0x00, 0xff, 0x13, 0x37, 0x42, 0x0a, 0x7b])],
    ['text that is not JSON', () => Buffer.from('this is my shopping list\n')],
    ['an empty file', () => Buffer.alloc(0)],
    ['JSON null', () => Buffer.from('null')],
    ['a JSON array', () => Buffer.from('[1, 2, 3]')],
    ['JSON of another format', () => Buffer.from(JSON.stringify({ name: 'my settings', version: 1 }))],
    ['a future version', () => Buffer.from(JSON.stringify({ ...JSON.parse(readFileSync(valid(), 'utf8')), version: 99 }))],
    ['no users', () => Buffer.from(JSON.stringify({ ...JSON.parse(readFileSync(valid(), 'utf8')), users: [] }))],
    [
      'no budgets',
      () => {
        const data = JSON.parse(readFileSync(valid(), 'utf8'));
        data.users[0].budgets = [];
        return Buffer.from(JSON.stringify(data));
      },
    ],
    [
      'a budget missing its transactions',
      () => {
        const data = JSON.parse(readFileSync(valid(), 'utf8'));
        delete data.users[0].budgets[0].transactions;
        return Buffer.from(JSON.stringify(data));
      },
    ],
    ['a truncated file', () => readFileSync(valid()).subarray(0, Math.floor(readFileSync(valid()).length / 2))],
  ];

  // Concurrent: separate processes and files; the context's expect keeps the reports apart.
  it.concurrent.for(cases)('%s: refused with a message naming the file, and left byte-for-byte unchanged', async ([name, content], { expect }) => {
    const file = join(dir, `corrupt-${name.replace(/\W+/g, '-')}.json`);
    const bytes = content();
    writeFileSync(file, bytes, { mode: 0o644 });
    const mtime = statSync(file).mtimeMs;
    const run = await runCli(['sandbox', '--port', '0', '--data', file]);
    expect(run.code, run.stderr).not.toBe(0);
    expect(run.code).not.toBeNull();
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(file);
    expect(run.stderr).toMatch(/cannot (read|load) sandbox data/);
    expect(run.stderr).toMatch(/left untouched/);
    expect(readFileSync(file).equals(bytes)).toBe(true);
    expect(statSync(file).mtimeMs).toBe(mtime);
    expect(statSync(file).mode & 0o777).toBe(0o644);
    expect(leftovers(dir)).toEqual([]);
  });

  it('a --data path in a missing directory fails at start with a message naming it', async () => {
    const file = join(dir, 'no-such-dir', 'data.json');
    const run = await runCli(['sandbox', '--port', '0', '--data', file]);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`cannot save sandbox data to ${file}`);
  });
});
