/**
 * The loopback redirect server on its own: one sign-in per run (a second callback while the
 * first is being handled is refused), only /callback, only form posts in fragment mode, errors
 * the service put in the query handed over as they are, and headers that keep the code out of
 * caches and Referer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startLoopback, type Loopback, type Outcome } from '../../src/auth/loopback.js';

const open: Loopback[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});

async function start(mode: 'query' | 'fragment', handle: (p: URLSearchParams) => Promise<Outcome>) {
  const l = await startLoopback({ port: 0, mode, handle });
  open.push(l);
  return l;
}

describe('loopback redirect', () => {
  it('handles exactly one callback, holding the browser until the outcome is known', async () => {
    let release!: () => void;
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => (entered = r));
    const seen: string[] = [];
    const l = await start('query', async (p) => {
      seen.push(p.get('code')!);
      entered();
      await new Promise<void>((r) => (release = r));
      return { ok: true, message: 'done <b>' };
    });
    expect(l.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const first = fetch(`${l.redirectUri}?code=one&state=s`);
    await inHandler;
    const second = await fetch(`${l.redirectUri}?code=two&state=s`);
    expect(second.status).toBe(409);
    expect(await second.text()).toMatch(/already handled/);
    release();
    const res = await first;
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await res.text()).toContain('done &#60;b&#62;');
    expect(await l.done).toEqual({ ok: true, message: 'done <b>' });
    expect(seen).toEqual(['one']);
  });

  it('answers other paths with 404 and refuses posts that are not form data', async () => {
    const l = await start('fragment', async () => ({ ok: true, message: 'ok' }));
    const origin = new URL(l.redirectUri).origin;
    expect((await fetch(`${origin}/favicon.ico`)).status).toBe(404);
    expect((await fetch(l.redirectUri, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(415);
    expect((await fetch(l.redirectUri, { method: 'PUT' })).status).toBe(405);
  });

  it('in fragment mode, an error the service put in the query is handed over without the relay page', async () => {
    const l = await start('fragment', async (p) => ({ ok: false, message: `refused: ${p.get('error')}` }));
    const res = await fetch(`${l.redirectUri}?error=access_denied&state=x`);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('refused: access_denied');
    expect((await l.done).ok).toBe(false);
  });

  it('a failing handler becomes a failed outcome, not a crash', async () => {
    const l = await start('query', async () => {
      throw new Error('exchange blew up');
    });
    const res = await fetch(`${l.redirectUri}?code=c`);
    expect(res.status).toBe(400);
    expect(await l.done).toEqual({ ok: false, message: 'exchange blew up' });
  });
});
