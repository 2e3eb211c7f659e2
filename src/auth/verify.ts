/**
 * Checks a token before it is stored: GET /user through the real client, so the request counts in
 * the token's shared request ledger and the base URL gets the client's checks (HTTPS, or HTTP to
 * this machine only).
 */
import { YnabClient } from '../api/client/client.js';
import { ApiError, ConfigError, NetworkError } from '../api/client/errors.js';
import { QuotaLedger } from '../quota/ledger.js';
import type { StateStore } from '../storage/store.js';

export class VerifyError extends Error {}

export interface VerifyOptions {
  token: string;
  baseUrl?: string;
  /** Where the request ledger lives: a state directory, or a store (hosted mode: Redis). */
  stateDir?: string;
  store?: StateStore;
}

/** Returns the YNAB user id the token belongs to; throws a VerifyError that says why it cannot be used. */
export async function verifyToken(opts: VerifyOptions): Promise<string> {
  let client: YnabClient;
  try {
    client = new YnabClient({
      transport: { baseUrl: opts.baseUrl },
      tokens: { token: async () => opts.token },
      quota: (token) => QuotaLedger.forToken(token, { stateDir: opts.stateDir, store: opts.store }),
      // One attempt: a person is waiting, and the error says what to do.
      retry: { attempts: 1 },
    });
  } catch (e) {
    if (e instanceof ConfigError) throw new VerifyError(e.message);
    throw e;
  }
  try {
    const res = await client.call('getUser');
    const id = (res.data.user as { id?: unknown } | undefined)?.id;
    if (typeof id !== 'string') throw new VerifyError('GET /user answered without a user id; is the base URL a YNAB API?');
    return id;
  } catch (e) {
    if (e instanceof VerifyError) throw e;
    if (e instanceof ApiError && e.status === 401) throw new VerifyError('YNAB did not accept the token (401 not_authorized)');
    if (e instanceof ApiError) throw new VerifyError(`YNAB answered GET /user with ${e.status} ${e.errorName}: ${client.scrub(e.detail)}`);
    if (e instanceof NetworkError || e instanceof ConfigError) throw new VerifyError(`could not check the token: ${client.scrub(e.message)}`);
    throw new VerifyError(`could not check the token: ${client.scrub((e as Error).message ?? String(e))}`);
  } finally {
    await client.close();
  }
}
