/**
 * The programs from outside npm that some tests use for real, how to tell whether this machine has
 * them, and how to get them. vitest.config.ts checks them once per run and turns each into a vitest
 * tag: a test file that needs one says so with a `// @module-tag <name>` line (a single test with
 * `{ tags: ['<name>'] }`), and its tests skip when the program is missing, unless the run makes it
 * mandatory (YNAB_MCP_REQUIRE_SERVICES, as .ci/run does): then they run, and fail saying what is
 * missing. services-notice.ts prints one line per missing program for the run.
 *
 * Loaded by the config as well as by tests: nothing here may import vitest.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { probeKeychain } from '../../src/auth/keychain.js';

export type ServiceName = 'redis' | 'chromium' | 'keychain' | 'openssl';

export interface Service {
  /** The vitest tag, and the word in YNAB_MCP_REQUIRE_SERVICES. */
  name: ServiceName;
  /** What the tests use, as a person would call it. */
  what: string;
  /** How to get it on Debian (the packages .ci/run installs). */
  install: string;
  /** Why it is unusable here (a clause that names it), or null when it works. */
  missing(env: NodeJS.ProcessEnv): Promise<string | null>;
}

export const REQUIRE_ENV = 'YNAB_MCP_REQUIRE_SERVICES';
/** The older switch for the keychain alone, still honoured: docs and CI scripts elsewhere use it. */
export const KEYCHAIN_TEST_ENV = 'YNAB_MCP_KEYCHAIN_TEST';
/** Where the view tests find Chromium; Debian's package puts it at the default. */
export const CHROMIUM_ENV = 'YNAB_MCP_CHROMIUM';

export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  return env[CHROMIUM_ENV] || '/usr/bin/chromium';
}

/** Null when `command args` runs and exits 0 with this PATH, else why not. */
function runs(command: string, args: string[], env: NodeJS.ProcessEnv): string | null {
  const r = spawnSync(command, args, { env, stdio: 'ignore', timeout: 10_000 });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') return `${command} is not on PATH`;
  if (r.error) return `${command} ${args.join(' ')} failed: ${r.error.message}`;
  return r.status === 0 ? null : `${command} ${args.join(' ')} exited with ${r.status ?? r.signal}`;
}

export const SERVICES: readonly Service[] = [
  {
    name: 'redis',
    what: 'redis-server and redis-cli',
    install: 'apt-get install redis-server',
    // redis-cli joins the test Redis Cluster's nodes (redis-cluster.ts); the package brings both.
    missing: async (env) => runs('redis-server', ['--version'], env) ?? runs('redis-cli', ['--version'], env),
  },
  {
    name: 'chromium',
    what: "Debian's Chromium",
    install: `apt-get install chromium (or ${CHROMIUM_ENV}=/path/to/chromium)`,
    missing: async (env) => {
      const path = chromiumPath(env);
      try {
        accessSync(path, constants.X_OK);
        return null;
      } catch {
        return `no Chromium at ${path}`;
      }
    },
  },
  {
    name: 'keychain',
    what: 'a Secret Service keychain',
    install: 'apt-get install gnome-keyring dbus-user-session, then test inside dbus-run-session with gnome-keyring-daemon unlocked (as .ci/run does)',
    missing: async () => {
      // The same sentinel round trip the keychain tests rely on; it leaves nothing behind.
      const probe = await probeKeychain({ service: `ynab-mcp-services-${process.pid}`, timeoutMs: 5_000 });
      return probe.available ? null : `no Secret Service keychain answers here (${probe.reason ?? 'unknown reason'})`;
    },
  },
  {
    name: 'openssl',
    what: 'the openssl command',
    install: 'apt-get install openssl',
    missing: async (env) => runs('openssl', ['version'], env),
  },
];

export interface ServiceStatus {
  name: ServiceName;
  what: string;
  install: string;
  /** Why it is unusable, or null when it works. */
  missing: string | null;
  /** Made mandatory for this run: its tests run (and fail) even when it is missing. */
  required: boolean;
}

/** The services this run must not skip, from YNAB_MCP_REQUIRE_SERVICES (and YNAB_MCP_KEYCHAIN_TEST=1). */
export function requiredServices(env: NodeJS.ProcessEnv = process.env): Set<ServiceName> {
  const known = SERVICES.map((s) => s.name);
  const words = (env[REQUIRE_ENV] ?? '').split(/[\s,]+/).filter(Boolean);
  const out = new Set<ServiceName>();
  for (const w of words) {
    if (w === 'all') known.forEach((n) => out.add(n));
    else if ((known as string[]).includes(w)) out.add(w as ServiceName);
    else throw new Error(`${REQUIRE_ENV}: unknown service "${w}"; expected a comma-separated list of ${known.join(', ')}, or all`);
  }
  if (env[KEYCHAIN_TEST_ENV] === '1') out.add('keychain');
  return out;
}

/** Each service checked (concurrently: the keychain probe is the slow one, ~0.1 s). */
export async function checkServices(env: NodeJS.ProcessEnv = process.env): Promise<ServiceStatus[]> {
  const required = requiredServices(env);
  return Promise.all(
    SERVICES.map(async (s) => ({ name: s.name, what: s.what, install: s.install, missing: await s.missing(env), required: required.has(s.name) })),
  );
}

/**
 * The vitest tags: a missing service's tests skip, unless the run requires it. A tag that does not
 * skip leaves `skip` out: vitest merges the options of a test's tags in order (Object.assign), so
 * `skip: false` from a service that is here would undo `skip: true` from one that is missing, and
 * the file's hooks would start the missing one.
 */
export function serviceTags(statuses: readonly ServiceStatus[]): { name: string; description: string; skip?: true }[] {
  return statuses.map((s) => ({
    name: s.name,
    description: `needs ${s.what} (${s.install})`,
    ...(s.missing !== null && !s.required ? { skip: true as const } : {}),
  }));
}

/** One line per missing service, for the start of the run; none when everything is here. */
export function serviceNotices(statuses: readonly ServiceStatus[]): string[] {
  return statuses
    .filter((s) => s.missing !== null)
    .map((s) =>
      s.required
        ? `MISSING, and required by ${REQUIRE_ENV}: ${s.missing}, so the tests tagged "${s.name}" will fail. Get it with: ${s.install}`
        : `skipping the tests tagged "${s.name}": ${s.missing}. Get it with: ${s.install}; ${REQUIRE_ENV}=${s.name} makes them fail instead`,
    );
}

/** The message a test gives when a required service is missing after all. */
export function missingMessage(name: ServiceName): string {
  const s = SERVICES.find((x) => x.name === name)!;
  return `the tests tagged "${name}" need ${s.what}: ${s.install}`;
}
