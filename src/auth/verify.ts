/**
 * Checks a token before it is stored: GET /user through the real client, so the request counts in
 * the token's shared request ledger and the base URL gets the client's checks (HTTPS, or HTTP to
 * this machine only).
 * A person is waiting (login, a hosted sign-in), so a failure that is likely to pass (a 5xx, a
 * dropped or timed-out connection) is tried twice more, 0.5 s then 1 s later, before the error
 * says what failed; an answer that will not change (401, 4xx, a refused certificate) is not retried.
 */
import { YnabClient } from '../api/client/client.js';
import { ApiError, ConfigError, NetworkError } from '../api/client/errors.js';
import { QuotaLedger } from '../quota/ledger.js';
import type { StateStore } from '../storage/store.js';

export class VerifyError extends Error {}

/** Waits before the second and third tries. */
export const VERIFY_RETRY_DELAYS_MS: readonly number[] = [500, 1000];

export interface VerifyOptions {
  token: string;
  baseUrl?: string;
  /** Where the request ledger lives: a state directory, or a store (hosted mode: Redis). */
  stateDir?: string;
  store?: StateStore;
  /** Told before each retry, with what failed (never the token) and how long until the next try. */
  onRetry?: (failure: string, delayMs: number) => void;
}

/** A failure that trying again shortly may not meet: the service's own trouble, or the connection's. */
function transient(e: unknown): boolean {
  return (e instanceof ApiError && e.status >= 500) || (e instanceof NetworkError && e.failure !== 'tls');
}

/** What went wrong, in words, without the token: the error's message, and what a retry is told. */
function failureOf(e: unknown, client: YnabClient): { message: string; cause: string } {
  if (e instanceof ApiError && e.status === 401) return { message: 'YNAB did not accept the token (401 not_authorized)', cause: '401 not_authorized' };
  if (e instanceof ApiError) {
    const answered = `YNAB answered GET /user with ${e.status} ${e.errorName}: ${client.scrub(e.detail)}`;
    return { message: answered, cause: answered };
  }
  const cause = client.scrub((e as Error)?.message ?? String(e));
  return { message: `could not check the token: ${cause}`, cause };
}

/** Returns the YNAB user id the token belongs to; throws a VerifyError that says why it cannot be used. */
export async function verifyToken(opts: VerifyOptions): Promise<string> {
  let client: YnabClient;
  try {
    client = new YnabClient({
      transport: { baseUrl: opts.baseUrl },
      credentials: { token: async () => opts.token },
      quota: (token) => QuotaLedger.forToken(token, { stateDir: opts.stateDir, store: opts.store }),
      // The tries are made here, where their number and spacing are known to the person waiting.
      retry: { attempts: 1 },
    });
  } catch (e) {
    if (e instanceof ConfigError) throw new VerifyError(e.message);
    throw e;
  }
  try {
    for (let attempt = 0; ; attempt++) {
      let res;
      try {
        res = await client.call('getUser');
      } catch (e) {
        if (e instanceof ConfigError) throw new VerifyError(e.message);
        const failure = failureOf(e, client);
        const delay = VERIFY_RETRY_DELAYS_MS[attempt];
        if (!transient(e)) throw new VerifyError(failure.message);
        if (delay === undefined) throw new VerifyError(`${failure.message} (tried ${attempt + 1} times)`);
        opts.onRetry?.(failure.cause, delay);
        await new Promise((r) => setTimeout(r, delay));
        continue;
      }
      const id = (res.data.user as { id?: unknown } | undefined)?.id;
      if (typeof id !== 'string') throw new VerifyError('GET /user answered without a user id; is the base URL a YNAB API?');
      return id;
    }
  } finally {
    await client.close();
  }
}
