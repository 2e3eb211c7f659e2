/**
 * The SEP's control envelopes (§Webhook-Based Delivery, Non-event webhook bodies): bodies with a
 * top-level `type`, signed and headed like an event, whose `webhook-id` is `msg_<type>_<random>`
 * (one id for every try of one message, so a receiver can deduplicate retries):
 *  - `gap` `{type, cursor}`: a gap found between refreshes; the receiver persists `cursor` and
 *    treats it as `truncated: true` (§Cursor Lifecycle, Gaps and `truncated`);
 *  - `terminated` `{type, error: {code, message, data}}`: the subscription has ended and no longer
 *    exists on the server (§Subscription Termination), with the same nested error in every mode.
 * (`verification` is webhooks.ts's handshake.) And when a subscription ends: a read of its budget
 * that says the sign-in can no longer read it (§Authorization, Delivery time: access revoked).
 */
import { randomBytes } from 'node:crypto';
import { ApiError } from '../api/client/errors.js';
import { OAuthRefreshError } from '../auth/oauth-provider.js';

/** §Error Handling: `Forbidden`, the principal's access was revoked. */
const FORBIDDEN = -32024;

/** Why a subscription ended: the `error` of its `terminated` envelope. */
export interface Ending {
  code: number;
  message: string;
  data: { reason: 'access_revoked' | 'budget_unavailable' };
}

export const controlId = (type: 'gap' | 'terminated'): string => `msg_${type}_${randomBytes(12).toString('hex')}`;

export const gapBody = (cursor: string): string => JSON.stringify({ type: 'gap', cursor });

export const terminatedBody = (ending: Ending): string => JSON.stringify({ type: 'terminated', error: ending });

/**
 * Whether a failed read of a budget ends its subscriptions: YNAB refused the sign-in (401, or a
 * refresh of the grant refused: access revoked), or the budget is not there for it any more (404,
 * 403 other than a read-only scope). Both are `Forbidden`, as the SEP's example is: the client
 * stops, it does not resubscribe against a new descriptor. Anything else (the network, a 5xx, the
 * quota) is passing: the subscription stays and delivery is tried again later.
 */
export function endingOf(error: unknown): Ending | undefined {
  if (error instanceof OAuthRefreshError || (error instanceof ApiError && error.status === 401))
    return { code: FORBIDDEN, message: 'Forbidden', data: { reason: 'access_revoked' } };
  if (error instanceof ApiError && (error.status === 404 || (error.status === 403 && !error.isReadOnlyScope)))
    return { code: FORBIDDEN, message: 'Forbidden', data: { reason: 'budget_unavailable' } };
  return undefined;
}
