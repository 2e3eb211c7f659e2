/**
 * `ynab-mcp login`: stores a personal access token, or signs in with OAuth in the browser
 * (`--oauth`), after checking the token with GET /user. Replaces the profile's previous sign-in
 * and the replicas saved for it. Everything for people goes to stderr; no secret is ever printed.
 */
import { ConfigError } from '../api/client/errors.js';
import { checkApiBaseUrl } from '../api/client/base-url.js';
import { saveCredentials, storedIdentity, type Scope } from '../auth/credentials.js';
import { whereStored } from '../auth/describe.js';
import { DEFAULT_APP_URL, DEFAULT_LOGIN_TIMEOUT_MS, DEFAULT_REDIRECT_PORT, LoginError, oauthLogin } from '../auth/oauth-login.js';
import { writeProfileInfo } from '../auth/profile-info.js';
import { readSecret } from '../auth/prompt.js';
import { removeReplicas } from '../auth/replica-files.js';
import { NO_KEYCHAIN, openSecretStore, type OpenedSecretStore } from '../auth/secret-store.js';
import { accessTokenFromEnv } from '../auth/token-source.js';
import { verifyToken, VerifyError } from '../auth/verify.js';
import { configDir, stateDir } from '../paths.js';
import { intFlag, parseFlags, UsageError, warningLine } from '../shared/cli-flags.js';
import { baseUrlFlag } from './secret-flags.js';

export const LOGIN_USAGE = `Usage: ynab-mcp login [--token-stdin] [options]
       ynab-mcp login --oauth --client-id ID [options]

Signs in to YNAB and stores the credentials in the OS keychain (without one: a file readable only
by you). The token is checked with GET /user first; nothing is stored if that fails.

Personal access token (YNAB: Account Settings > Developer Settings):
  (no flag)               asks for the token on the terminal; the input is hidden
  --token-stdin           reads the token from stdin (e.g. piped from a password manager)

OAuth application (registered in Developer Settings):
  --oauth                 signs in in the browser
  --client-id ID          the application's client id (required with --oauth)
  --client-secret-stdin   reads the client secret from stdin (default: asked on the terminal, hidden)
  --implicit              implicit grant: no client secret, no refresh token (sign in again after 2 hours)
  --scope read-only|full  read-only access makes the server work as --read-only (default full)
  --app-url URL           where YNAB's OAuth lives (default ${DEFAULT_APP_URL}; the sandbox's app_url to try it)
  --port N                loopback redirect port (default ${DEFAULT_REDIRECT_PORT}; 0 = any free port). The application
                          must list http://127.0.0.1:N/callback as a redirect URI.
  --no-browser            only print the authorization address, do not open a browser
  --timeout S             stop waiting for the browser after S seconds (default ${DEFAULT_LOGIN_TIMEOUT_MS / 1000})

Both:
  --base-url URL          the API to check the token with and to use later (or YNAB_BASE_URL; default https://api.ynab.com/v1)
  --profile NAME          which stored sign-in to write (default "default")

Environment: YNAB_MCP_KEYCHAIN=off stores in the file even when a keychain works.
`;

const log = (line: string) => process.stderr.write(`${line}\n`);

function parseScope(value: string | undefined): Scope {
  if (value === undefined || value === 'full') return 'full';
  if (value === 'read-only') return 'read-only';
  throw new UsageError(`--scope must be "read-only" or "full", got ${JSON.stringify(value)}`);
}

/** The previous sign-in's replicas belong to a grant or token that is gone now: remove them. */
async function dropOldReplicas(store: OpenedSecretStore, previous: string | null): Promise<void> {
  if (previous === null || previous === (await storedIdentity(store))) return;
  const removed = await removeReplicas(stateDir(), previous);
  if (removed.budgets.length > 0) log(`Removed the ${removed.budgets.length} budget replica(s) saved for the previous sign-in.`);
}

export async function loginCommand(argv: string[]): Promise<void> {
  const flags = parseFlags(argv, {
    'token-stdin': { type: 'boolean' },
    oauth: { type: 'boolean' },
    'client-id': { type: 'string' },
    'client-secret-stdin': { type: 'boolean' },
    implicit: { type: 'boolean' },
    scope: { type: 'string' },
    'app-url': { type: 'string' },
    port: { type: 'string' },
    'no-browser': { type: 'boolean' },
    timeout: { type: 'string' },
    'base-url': { type: 'string' },
    profile: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (flags.help) {
    process.stdout.write(LOGIN_USAGE);
    return;
  }
  const oauth = flags.oauth === true;
  const oauthOnly = ['client-id', 'client-secret-stdin', 'implicit', 'scope', 'app-url', 'port', 'no-browser', 'timeout'] as const;
  if (!oauth) {
    const stray = oauthOnly.find((f) => flags[f] !== undefined);
    if (stray) throw new UsageError(`--${stray} is an OAuth option: add --oauth`);
  } else {
    if (flags['token-stdin']) throw new UsageError('--token-stdin is for personal access tokens; with --oauth use --client-secret-stdin');
    if (!flags['client-id']) throw new UsageError("--oauth needs --client-id (the OAuth application's client id)");
    if (flags.implicit && flags['client-secret-stdin']) throw new UsageError('--implicit uses no client secret; drop --client-secret-stdin');
  }
  const scope = parseScope(flags.scope);
  const port = intFlag(flags.port, 'port', 0, 65535) ?? DEFAULT_REDIRECT_PORT;
  const timeoutMs = (intFlag(flags.timeout, 'timeout', 1, 3600) ?? DEFAULT_LOGIN_TIMEOUT_MS / 1000) * 1000;
  const baseUrl = baseUrlFlag(flags['base-url']) ?? (process.env.YNAB_BASE_URL || undefined);
  // Refuse a bad API address before anyone pastes a secret or visits the browser.
  if (baseUrl !== undefined) {
    try {
      checkApiBaseUrl(baseUrl);
    } catch (e) {
      throw new UsageError(`--base-url: ${(e as Error).message}`);
    }
  }

  let keychainWarned = false;
  const warn = (m: string) => {
    keychainWarned ||= m.startsWith(NO_KEYCHAIN);
    log(warningLine(m));
  };
  const store = await openSecretStore({ configDir: configDir(), profile: flags.profile, warn });
  const previous = await storedIdentity(store);
  if (accessTokenFromEnv(process.env) !== null) {
    log('Note: YNAB_ACCESS_TOKEN is set; while it is, ynab-mcp uses it instead of the sign-in stored now.');
  }

  if (oauth) {
    const clientSecret = flags.implicit ? null : await readSecret('OAuth client secret', flags['client-secret-stdin'] === true, '--client-secret-stdin');
    const result = await oauthLogin({
      clientId: flags['client-id']!,
      clientSecret,
      implicit: flags.implicit === true,
      scope,
      appUrl: flags['app-url'] ?? DEFAULT_APP_URL,
      baseUrl,
      port,
      openBrowser: !flags['no-browser'],
      timeoutMs,
      stateDir: stateDir(),
      store,
      log,
    });
    await dropOldReplicas(store, previous);
    await writeProfileInfo(configDir(), store.profile, { kind: 'oauth', scope: result.scope });
    const kind = flags.implicit ? 'OAuth implicit grant (no refresh token: sign in again when it expires)' : 'OAuth grant, refreshed automatically';
    log(
      `Signed in to YNAB as user ${result.userId}: ${kind}, ${result.scope === 'read-only' ? 'read-only access' : 'full access'}, token valid until ${result.expiresAt.toISOString()}.`,
    );
    log(`Stored in ${whereStored(store, keychainWarned)} for profile "${store.profile}".`);
    return;
  }

  const token = await readSecret('YNAB personal access token', flags['token-stdin'] === true, '--token-stdin');
  let userId: string;
  try {
    userId = await verifyToken({
      token,
      baseUrl,
      stateDir: stateDir(),
      onRetry: (failure, ms) => log(`Checking the token: ${failure}; trying again in ${ms / 1000} s.`),
    });
  } catch (e) {
    if (e instanceof VerifyError || e instanceof ConfigError) throw new LoginError(`the token was not stored: ${e.message}`);
    throw e;
  }
  await saveCredentials(store, { kind: 'personal', accessToken: token, baseUrl });
  await dropOldReplicas(store, previous);
  await writeProfileInfo(configDir(), store.profile, { kind: 'personal', scope: 'full' });
  log(`Signed in to YNAB as user ${userId} with a personal access token.`);
  log(`Stored in ${whereStored(store, keychainWarned)} for profile "${store.profile}".`);
}
