/**
 * `ynab-mcp sandbox`: starts the local v1 service with demo budgets. Once listening it prints
 * exactly one JSON line on stdout (addresses, tokens, OAuth client) and logs only to stderr.
 */
import { startSandbox } from '../sandbox/app.js';
import { FaultSpecError, parseFaults } from '../sandbox/faults.js';
import { intFlag, listenError, parseFlags, UsageError } from '../shared/cli-flags.js';
import { SERVE_SANDBOX_SEED } from './sandbox-seed.js';

export const SANDBOX_USAGE = `Usage: ynab-mcp sandbox [options]
       ynab-mcp sandbox statement --account NAME --format csv|ofx|qfx|qif|camt053 [options]

Starts a local, faithful implementation of the YNAB v1 API with demo budgets.
Prints one JSON line on stdout once listening: base_url, app_url, access_token,
read_only_token, oauth_client_id, oauth_client_secret (the first user's tokens), and
users: [{email, access_token, read_only_token}] for every user.

\`sandbox statement\` writes a bank statement file for a demo account (rows the budget
does not have yet, one amount that differs, one it lacks, a statement balance) to try
import_statement and reconcile_account: \`ynab-mcp sandbox statement --help\`.

Options:
  --port N               port to listen on (0 = a free port; default 0)
  --host HOST            address to bind (default 127.0.0.1)
  --token T              the full-access personal token to accept
  --read-only-token T    the read-only personal token to accept
                         (test values for this local service, visible in the process list
                         like any argument: never use a real YNAB token here)
  --seed S               demo data seed (default "${SERVE_SANDBOX_SEED}", as serve --sandbox and
                         sandbox statement): same seed, same budgets
  --users N              users, each with their own demo budgets and tokens (default 1);
                         /oauth/authorize?login=EMAIL signs in as one of them
  --data FILE            load the sandbox from FILE if present; save it there (every
                         answered change is on disk first, in FILE.journal)
  --from FILE            serve the budget in FILE, the JSON of GET /budgets/{id} (or its
                         data.budget), with YNAB's figures; stderr says where the sandbox's
                         own arithmetic differs (docs/sandbox.md#a-budget-from-an-export)
  --transactions N       transactions in the first demo budget (default ~1500, up to 200000)
  --rate-limit N         requests per token per hour (default 200)
  --faults SPEC          inject faults, e.g. "500=0.05,503=0.05,reset=0.02,silent=0.01,slow=0.02,echo-auth=0.01"
  --oauth-token-ttl S    lifetime of OAuth access tokens in seconds (default 7200)
  --request-timeout MS   requests longer than this end with 503 (default 30000)
  --strict               refuse request bodies with fields the API does not define (400
                         naming them); by default they are ignored, as the service does
  --verbose              log every request on stderr
`;

export async function sandboxCommand(argv: string[]): Promise<void> {
  if (argv[0] === 'statement') {
    (await import('./sandbox-statement.js')).statementCommand(argv.slice(1));
    return;
  }
  const flags = parseFlags(argv, {
    port: { type: 'string' },
    host: { type: 'string' },
    token: { type: 'string' },
    'read-only-token': { type: 'string' },
    seed: { type: 'string' },
    users: { type: 'string' },
    data: { type: 'string' },
    from: { type: 'string' },
    transactions: { type: 'string' },
    'rate-limit': { type: 'string' },
    faults: { type: 'string' },
    'oauth-token-ttl': { type: 'string' },
    'request-timeout': { type: 'string' },
    verbose: { type: 'boolean' },
    strict: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (flags.help) {
    process.stdout.write(SANDBOX_USAGE);
    return;
  }
  if (flags.faults !== undefined) {
    // A bad --faults value is a usage error (exit code 2), like every other bad flag value.
    try {
      parseFaults(flags.faults);
    } catch (e) {
      throw e instanceof FaultSpecError ? new UsageError(e.message.includes('--faults') ? e.message : `--faults: ${e.message}`) : e;
    }
  }
  for (const flag of ['token', 'read-only-token'] as const) {
    const value = flags[flag];
    if (value !== undefined && !/^[\x21-\x7e]{1,512}$/.test(value)) {
      throw new UsageError(`--${flag} must be 1 to 512 printable characters without spaces (it is sent as "Authorization: Bearer <token>")`);
    }
  }
  if (flags.token !== undefined && flags.token === flags['read-only-token']) {
    throw new UsageError('--token and --read-only-token must differ: one token cannot have both scopes');
  }
  const port = intFlag(flags.port, 'port', 0, 65535) ?? 0;
  const host = flags.host ?? '127.0.0.1';
  const sandbox = await startSandbox({
    port,
    host,
    token: flags.token,
    readOnlyToken: flags['read-only-token'],
    seed: flags.seed ?? SERVE_SANDBOX_SEED,
    users: intFlag(flags.users, 'users', 1, 100),
    dataFile: flags.data,
    from: flags.from,
    transactions: intFlag(flags.transactions, 'transactions', 0, 200_000),
    rateLimit: intFlag(flags['rate-limit'], 'rate-limit', 1, 1_000_000),
    faults: flags.faults,
    oauthTokenTtl: intFlag(flags['oauth-token-ttl'], 'oauth-token-ttl', 1, 31_536_000),
    requestTimeoutMs: intFlag(flags['request-timeout'], 'request-timeout', 1, 3_600_000),
    verbose: flags.verbose,
    strict: flags.strict,
  }).catch((e: unknown) => {
    throw listenError(e, host, port);
  });
  // Handlers first: a client may signal as soon as it has read the announcement, and without
  // a handler SIGTERM would end the process at once, unsaved.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`ynab-mcp sandbox: ${signal}, stopping\n`);
    sandbox.close().then(
      () => process.exit(0),
      (e: unknown) => {
        process.stderr.write(`ynab-mcp sandbox: could not save on exit: ${(e as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  process.stdout.write(`${JSON.stringify(sandbox.announcement())}\n`);
  const names = sandbox.state.budgets.map((b) => `"${b.rec.name}"`).join(', ');
  process.stderr.write(`ynab-mcp sandbox: serving ${names} at ${sandbox.baseUrl}${flags.data ? `, saving to ${flags.data}` : ''}\n`);
}
