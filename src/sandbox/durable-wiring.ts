/**
 * A running sandbox tied to its --data file (durable.ts): what its snapshot holds, and the
 * changes that are not budget writes (grants, refresh tokens, codes, last-used budgets) recorded
 * as they happen, like budget writes are. Apart from the start-up (world.ts) so that what is
 * saved can be read in one place.
 */
import { Durability } from './durable.js';
import type { OAuthClient, OAuthServer } from './oauth.js';
import type { SandboxState, SandboxUser } from './state.js';
import type { TokenRegistry } from './tokens.js';

export interface DurableParts {
  users: SandboxUser[];
  state: SandboxState;
  client: OAuthClient;
  tokens: TokenRegistry;
  oauth: OAuthServer;
}

export function keepDurable(file: string, seq: number, parts: DurableParts, log: (line: string) => void): Durability {
  const { users, state, client, tokens, oauth } = parts;
  const durability = new Durability(
    file,
    seq,
    () => {
      const snapshot = tokens.snapshot();
      return {
        users: users.map((u) => ({
          id: u.id,
          email: u.email,
          access_token: u.accessToken,
          read_only_token: u.readOnlyToken,
          last_used_budget_id: u.lastUsedBudgetId,
          budgets: u.budgets.map((b) => b.rec),
        })),
        // Personal tokens come from the users; only OAuth grants are kept here.
        oauth: {
          client_id: client.id,
          client_secret: client.secret,
          grants: snapshot.grants.filter((g) => g.kind === 'oauth'),
          refresh_tokens: snapshot.refresh_tokens,
          codes: oauth.pendingCodes(),
        },
      };
    },
    users.flatMap((u) => u.budgets),
    log,
  );
  // Grants, codes and last-used budgets are state too: journaled like budget writes.
  tokens.onChange = (change) => durability.record('grant' in change ? { kind: 'grant', grant: change.grant } : { kind: 'refresh', entry: change.refresh });
  oauth.onCode = (code, pending) => durability.record({ kind: 'code', code, pending });
  state.onLastUsed = (user) => durability.record({ kind: 'last_used', user_id: user.id, budget_id: user.lastUsedBudgetId });
  return durability;
}
