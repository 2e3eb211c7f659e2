/**
 * Who may come into a hosted deployment, read with the other hosted options (options.ts):
 *  - --allowed-origins (or YNAB_MCP_ALLOWED_ORIGINS): browser origins allowed on the MCP endpoints
 *    beside the default three (the web apps of Claude and ChatGPT), each an exact origin;
 *  - --registration-limit and --registration-window: dynamic client registrations one client
 *    address may make in a window (seconds), counted in the store for every instance;
 *  - --allowed-users (or YNAB_MCP_ALLOWED_USERS): the YNAB user ids that may sign in; none: anyone.
 * Every problem is a UsageError that says what is wrong and what is expected.
 */
import { intFlag, listFlag, UsageError } from '../shared/cli-flags.js';

/** Browser origins every hosted deployment answers on its MCP endpoints: claude.ai (both names) and ChatGPT. */
export const DEFAULT_HOSTED_ORIGINS: readonly string[] = ['https://claude.ai', 'https://claude.com', 'https://chatgpt.com'];
/** Registrations one address may make per window: a person connecting a few clients never meets it. */
export const DEFAULT_REGISTRATION_LIMIT = 20;
export const DEFAULT_REGISTRATION_WINDOW_S = 3600;

export interface AccessOptions {
  /** Exact origins (scheme://host[:port], lower case) allowed on the MCP endpoints. */
  origins: string[];
  registrationLimit: number;
  registrationWindowS: number;
  /** YNAB user ids that may sign in; undefined: anyone with a YNAB account. */
  allowedUsers?: ReadonlySet<string>;
}

export interface AccessFlags {
  'allowed-origins'?: string;
  'registration-limit'?: string;
  'registration-window'?: string;
  'allowed-users'?: string;
}

type Env = Record<string, string | undefined>;

/** An origin as a browser sends it: scheme://host[:port], nothing else. */
function exactOrigin(entry: string): string {
  const url = URL.parse(entry);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== entry.replace(/\/$/, '').toLowerCase()) {
    throw new UsageError(
      `--allowed-origins takes origins as browsers send them (scheme://host[:port], e.g. https://app.example.com); ${JSON.stringify(entry)} is not one`,
    );
  }
  return url.origin;
}

const UUID_FORMAT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function accessOptions(flags: AccessFlags, env: Env): AccessOptions {
  const extra = listFlag(flags['allowed-origins'] ?? env.YNAB_MCP_ALLOWED_ORIGINS).map((e) => exactOrigin(e.toLowerCase()));
  const users = listFlag(flags['allowed-users'] ?? env.YNAB_MCP_ALLOWED_USERS);
  for (const id of users) {
    if (!UUID_FORMAT.test(id))
      throw new UsageError(
        `--allowed-users takes YNAB user ids (the id GET /user answers, a UUID; a refused user's page shows theirs); ${JSON.stringify(id)} is not one`,
      );
  }
  return {
    origins: [...new Set([...DEFAULT_HOSTED_ORIGINS, ...extra])],
    registrationLimit: intFlag(flags['registration-limit'], 'registration-limit', 1, 100_000) ?? DEFAULT_REGISTRATION_LIMIT,
    registrationWindowS: intFlag(flags['registration-window'], 'registration-window', 1, 7 * 86_400) ?? DEFAULT_REGISTRATION_WINDOW_S,
    allowedUsers: users.length ? new Set(users.map((u) => u.toLowerCase())) : undefined,
  };
}
