/**
 * `serve --hosted`: its fixed interface and the mistakes it refuses before starting (each with
 * what is wrong and what is expected), and the single-user default that must not load Redis or
 * the authorization server at all.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/shared/cli-flags.js';
import { hostedOptions, observabilityOptions } from '../../src/hosted/options.js';
import { withoutRuntimeWarning } from '../../src/hosted/oidc-load.js';
import { REPO_ROOT, runCli } from '../helpers/cli.js';

const KEY = Buffer.alloc(32, 7).toString('base64');
const env = (over: Record<string, string | undefined> = {}) => ({
  YNAB_OAUTH_CLIENT_ID: 'cid',
  YNAB_OAUTH_CLIENT_SECRET: 'csecret',
  YNAB_MCP_DATA_KEY: KEY,
  ...over,
});
const flags = (over: Record<string, string | undefined> = {}) => ({ 'public-url': 'https://mcp.example.com', redis: 'redis://127.0.0.1:6379', ...over });
const refused = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error('not refused');
};

describe('hosted options', () => {
  it('takes the public origin, Redis, the YNAB application and the data key', () => {
    const o = hostedOptions(flags({ 'app-url': 'http://127.0.0.1:9/', 'base-url': 'http://127.0.0.1:9/v1' }), env(), () => undefined);
    expect(o).toMatchObject({
      publicUrl: 'https://mcp.example.com',
      resource: 'https://mcp.example.com/mcp',
      ynabRedirectUri: 'https://mcp.example.com/oauth/callback',
      loopbackTest: false,
      redisUrl: 'redis://127.0.0.1:6379',
      ynab: { clientId: 'cid', clientSecret: 'csecret', appUrl: 'http://127.0.0.1:9', baseUrl: 'http://127.0.0.1:9/v1' },
    });
    expect(hostedOptions(flags({ 'public-url': 'http://127.0.0.1:8080' }), env(), () => undefined).loopbackTest).toBe(true);
  });

  it('refuses a public URL that is plain http off loopback, has a path, or carries credentials', () => {
    expect(refused(() => hostedOptions(flags({ 'public-url': 'http://mcp.example.com' }), env(), () => undefined))).toMatch(/must be https.*loopback/);
    expect(refused(() => hostedOptions(flags({ 'public-url': 'https://mcp.example.com/ynab' }), env(), () => undefined))).toMatch(/must be an origin/);
    expect(refused(() => hostedOptions(flags({ 'public-url': 'https://u:p@mcp.example.com' }), env(), () => undefined))).toMatch(/user name or password/);
    expect(refused(() => hostedOptions(flags({ 'public-url': undefined }), env(), () => undefined))).toMatch(/needs --public-url/);
  });

  it('takes no Redis password on the command line; the environment may carry one', () => {
    expect(refused(() => hostedOptions(flags({ redis: 'redis://:pw@127.0.0.1:6379' }), env(), () => undefined))).toMatch(/YNAB_MCP_REDIS_PASSWORD/);
    expect(hostedOptions(flags({ redis: undefined }), env({ YNAB_MCP_REDIS_URL: 'rediss://:pw@redis.internal:6380/2' }), () => undefined).redisUrl).toBe(
      'rediss://:pw@redis.internal:6380/2',
    );
    expect(hostedOptions(flags(), env({ YNAB_MCP_REDIS_PASSWORD: 'p@ss' }), () => undefined).redisUrl).toBe('redis://:p%40ss@127.0.0.1:6379');
    expect(refused(() => hostedOptions(flags({ redis: 'http://127.0.0.1' }), env(), () => undefined))).toMatch(/redis:\/\/ or rediss:\/\//);
    expect(refused(() => hostedOptions(flags({ redis: undefined }), env(), () => undefined))).toMatch(/needs Redis/);
  });

  it('takes a Redis Cluster: redis+cluster:// seeds or --redis once per seed, its password only from the environment', () => {
    const quiet = () => undefined;
    const url = (redis: string | string[] | undefined, over: Record<string, string> = {}) =>
      hostedOptions({ ...flags(), redis: redis as string }, env(over), quiet).redisUrl;
    expect(url('redis+cluster://10.0.0.1:7000,10.0.0.2:7001')).toBe('redis+cluster://10.0.0.1:7000,10.0.0.2:7001');
    expect(url(['redis://10.0.0.1:7000', 'redis://10.0.0.2:7001', 'redis://10.0.0.3:7002/0'])).toBe(
      'redis+cluster://10.0.0.1:7000,10.0.0.2:7001,10.0.0.3:7002',
    );
    expect(url(['rediss://10.0.0.1:7000', 'rediss://10.0.0.2:7001'], { YNAB_MCP_REDIS_PASSWORD: 'p@ss' })).toBe(
      'rediss+cluster://:p%40ss@10.0.0.1:7000,10.0.0.2:7001',
    );
    expect(url(['redis://10.0.0.1:6379'])).toBe('redis://10.0.0.1:6379'); // once is one Redis, as before
    expect(url(undefined, { YNAB_MCP_REDIS_URL: 'redis+cluster://app:pw@10.0.0.1:7000' })).toBe('redis+cluster://app:pw@10.0.0.1:7000');
    expect(refused(() => url('redis+cluster://:pw@10.0.0.1:7000'))).toMatch(/YNAB_MCP_REDIS_PASSWORD/);
    expect(refused(() => url(['redis://10.0.0.1:7000', 'redis://:pw@10.0.0.2:7001']))).toMatch(/YNAB_MCP_REDIS_PASSWORD/);
    expect(refused(() => url(['redis://10.0.0.1:7000', 'rediss://10.0.0.2:7001']))).toMatch(/mix redis:\/\/ and rediss:\/\//);
    expect(refused(() => url(['redis://10.0.0.1:7000', 'redis://10.0.0.2:7001/3']))).toMatch(/each redis:\/\/host:port/);
    expect(refused(() => url('redis+cluster://10.0.0.1:7000/2'))).toMatch(/only database 0/);
  });

  it('needs the YNAB application and a 32-byte data key, from the environment or files', () => {
    expect(refused(() => hostedOptions(flags(), env({ YNAB_OAUTH_CLIENT_SECRET: undefined }), () => undefined))).toMatch(
      /YNAB_OAUTH_CLIENT_ID and YNAB_OAUTH_CLIENT_SECRET.*redirect URI https:\/\/mcp\.example\.com\/oauth\/callback/,
    );
    expect(refused(() => hostedOptions(flags(), env({ YNAB_MCP_DATA_KEY: undefined }), () => undefined))).toMatch(/openssl rand -base64 32/);
    expect(refused(() => hostedOptions(flags(), env({ YNAB_MCP_DATA_KEY: 'too-short' }), () => undefined))).toMatch(/32 random bytes/);
    const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-hosted-opts-'));
    try {
      writeFileSync(join(dir, 'secret'), 'from-file\n', { mode: 0o600 });
      writeFileSync(join(dir, 'key'), `${Buffer.alloc(32, 9).toString('hex')}\n`, { mode: 0o644 });
      const warnings: string[] = [];
      const o = hostedOptions(
        flags(),
        env({
          YNAB_OAUTH_CLIENT_SECRET: undefined,
          YNAB_OAUTH_CLIENT_SECRET_FILE: join(dir, 'secret'),
          YNAB_MCP_DATA_KEY: undefined,
          YNAB_MCP_DATA_KEY_FILE: join(dir, 'key'),
        }),
        (w) => warnings.push(w),
      );
      expect(o.ynab.clientSecret).toBe('from-file');
      expect(warnings.join('\n')).toMatch(/YNAB_MCP_DATA_KEY_FILE .* can be read by other users/);
      expect(refused(() => hostedOptions(flags(), env({ YNAB_OAUTH_CLIENT_SECRET_FILE: join(dir, 'secret') }), () => undefined))).toMatch(/not both/);
      expect(
        refused(() =>
          hostedOptions(flags(), env({ YNAB_OAUTH_CLIENT_SECRET: undefined, YNAB_OAUTH_CLIENT_SECRET_FILE: join(dir, 'missing') }), () => undefined),
        ),
      ).toMatch(/no such file/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('who may come in: origins, registrations, YNAB users', () => {
  it('allows Claude and ChatGPT by default, adds exact origins, and refuses what is not an origin', () => {
    const o = hostedOptions(flags(), env(), () => undefined);
    expect(o.access).toEqual({ origins: ['https://claude.ai', 'https://claude.com', 'https://chatgpt.com'], registrationLimit: 20, registrationWindowS: 3600 });
    const more = hostedOptions(flags({ 'allowed-origins': 'https://App.example.com, http://localhost:6274' }), env(), () => undefined);
    expect(more.access.origins.slice(3)).toEqual(['https://app.example.com', 'http://localhost:6274']);
    expect(hostedOptions(flags(), env({ YNAB_MCP_ALLOWED_ORIGINS: 'https://x.example' }), () => undefined).access.origins).toContain('https://x.example');
    for (const bad of ['app.example.com', 'https://app.example.com/path', 'ftp://app.example.com'])
      expect(refused(() => hostedOptions(flags({ 'allowed-origins': bad }), env(), () => undefined))).toMatch(/--allowed-origins takes origins/);
  });

  it('takes the registration limit and window as whole numbers, and YNAB user ids as UUIDs', () => {
    const id = '0b0b6f4e-3c5a-4d0e-9a7e-1f2d3c4b5a69';
    const o = hostedOptions(flags({ 'registration-limit': '3', 'registration-window': '60', 'allowed-users': id.toUpperCase() }), env(), () => undefined);
    expect(o.access).toMatchObject({ registrationLimit: 3, registrationWindowS: 60, allowedUsers: new Set([id]) });
    expect(refused(() => hostedOptions(flags({ 'registration-limit': '0' }), env(), () => undefined))).toMatch(/--registration-limit must be between 1/);
    expect(refused(() => hostedOptions(flags({ 'allowed-users': 'someone@example.com' }), env(), () => undefined))).toMatch(
      /--allowed-users takes YNAB user ids/,
    );
  });
});

describe('hosted logs and metrics flags', () => {
  it('--log-format is text or json (text by default); --metrics-port a port; --metrics-token-file a readable file of one long token', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-obs-'));
    try {
      const file = (name: string, text: string, mode = 0o600) => {
        const path = join(dir, name);
        writeFileSync(path, text, { mode });
        return path;
      };
      const warnings: string[] = [];
      const o = (f: Parameters<typeof observabilityOptions>[0]) => observabilityOptions(f, (m) => warnings.push(m));
      expect(o({})).toEqual({ logFormat: 'text' });
      const good = file('good', 'a'.repeat(32) + '\n');
      expect(o({ 'log-format': 'json', 'metrics-token-file': good, 'metrics-port': '9464' })).toEqual({
        logFormat: 'json',
        metricsToken: 'a'.repeat(32),
        metricsPort: 9464,
      });
      expect(warnings).toEqual([]);
      expect(refused(() => o({ 'log-format': 'xml' }))).toBe('--log-format must be "text" or "json", got "xml"');
      expect(refused(() => o({ 'metrics-port': '0' }))).toMatch(/--metrics-port must be between 1 and 65535, got 0/);
      expect(refused(() => o({ 'metrics-port': 'x' }))).toMatch(/--metrics-port must be a whole number/);
      expect(refused(() => o({ 'metrics-token-file': join(dir, 'missing') }))).toBe(
        `--metrics-token-file ${join(dir, 'missing')} cannot be read: no such file`,
      );
      expect(refused(() => o({ 'metrics-token-file': file('empty', '\n') }))).toBe(`--metrics-token-file ${join(dir, 'empty')} is empty`);
      expect(refused(() => o({ 'metrics-token-file': file('short', 'abc123\n') }))).toMatch(/holds a token of 6 characters; use at least 16/);
      expect(refused(() => o({ 'metrics-token-file': file('spaces', 'two words that are long enough\n') }))).toMatch(/should hold one token/);
      expect(refused(() => o({ 'metrics-token-file': dir }))).toMatch(/is not a file/);
      // Readable by others: taken, with a warning that says how to fix it.
      o({ 'metrics-token-file': file('open', 'b'.repeat(20), 0o644) });
      expect(warnings.join('\n')).toMatch(/--metrics-token-file .*open can be read by other users \(mode 644\); run: chmod 600/);
      // The token is never in a message.
      expect(warnings.join('\n')).not.toContain('b'.repeat(20));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('serve --hosted on the command line', () => {
  it('--drain-seconds: 20 by default, a whole number of seconds up to an hour, and only with --hosted', async () => {
    expect(hostedOptions(flags(), env(), () => undefined).drainSeconds).toBe(20);
    expect(hostedOptions(flags({ 'drain-seconds': '0' }), env(), () => undefined).drainSeconds).toBe(0);
    expect(hostedOptions(flags({ 'drain-seconds': '45' }), env(), () => undefined).drainSeconds).toBe(45);
    expect(refused(() => hostedOptions(flags({ 'drain-seconds': '2.5' }), env(), () => undefined))).toMatch(
      /--drain-seconds must be a whole number between 0 and 3600, got "2.5"/,
    );
    expect(refused(() => hostedOptions(flags({ 'drain-seconds': '3601' }), env(), () => undefined))).toMatch(
      /--drain-seconds must be between 0 and 3600, got 3601/,
    );
    const stray = await runCli(['serve', '--transport', 'http', '--drain-seconds', '5'], { env: env() });
    expect(stray.code).not.toBe(0);
    expect(stray.stderr).toMatch(/--drain-seconds belongs to hosted mode: add --hosted/);
  });

  it('--replica-cache-mb: 512 by default, a whole number of MB from 16, and only with --hosted', async () => {
    const mb = (v?: string) => hostedOptions(flags(v === undefined ? {} : { 'replica-cache-mb': v }), env(), () => undefined).replicaCacheBytes;
    expect(mb()).toBe(512 * 1024 * 1024);
    expect(mb('64')).toBe(64 * 1024 * 1024);
    expect(refused(() => mb('8'))).toMatch(/--replica-cache-mb must be between 16 and 1048576, got 8/);
    expect(refused(() => mb('1.5'))).toMatch(/--replica-cache-mb must be a whole number between 16 and 1048576, got "1.5"/);
    const stray = await runCli(['serve', '--transport', 'http', '--replica-cache-mb', '64'], { env: env() });
    expect(stray.code).not.toBe(0);
    expect(stray.stderr).toMatch(/--replica-cache-mb belongs to hosted mode: add --hosted/);
  });

  it('refuses flags that do not belong together, saying why, and never echoes a secret', async () => {
    const run = (args: string[]) => runCli(['serve', ...args], { env: env() });
    const notHttp = await run(['--hosted', '--public-url', 'https://mcp.example.com']);
    expect(notHttp.code).not.toBe(0);
    expect(notHttp.stderr).toMatch(/--hosted serves over HTTP: add --transport http/);
    const sandbox = await run(['--transport', 'http', '--hosted', '--sandbox', '--public-url', 'https://mcp.example.com', '--redis', 'redis://127.0.0.1:1']);
    expect(sandbox.stderr).toMatch(/--sandbox cannot be used with --hosted/);
    const stray = await run(['--transport', 'http', '--redis', 'redis://127.0.0.1:1']);
    expect(stray.stderr).toMatch(/--redis belongs to hosted mode: add --hosted/);
    const metricsStray = await run(['--transport', 'http', '--metrics-port', '9464']);
    expect(metricsStray.stderr).toMatch(/--metrics-port belongs to hosted mode: add --hosted/);
    const noRedis = await run(['--transport', 'http', '--hosted', '--public-url', 'https://mcp.example.com', '--redis', 'redis://127.0.0.1:1', '--port', '0']);
    expect(noRedis.code).not.toBe(0);
    expect(noRedis.stderr).toMatch(/Redis at redis:\/\/127\.0\.0\.1:1 cannot be reached/);
    for (const r of [notHttp, sandbox, stray, noRedis]) expect(r.stderr).not.toContain('csecret');
  });
});

describe('oidc-provider on this Node', () => {
  it('hosted mode loads the authorization server without its "Unsupported runtime" warning (Node 20.18+ is supported)', async () => {
    expect(semver.gte(process.version, '20.18.1')).toBe(true);
    const runs = ['text', 'json'].map((format) =>
      runCli(
        [
          'serve',
          '--transport',
          'http',
          '--hosted',
          '--public-url',
          'http://127.0.0.1:8080',
          '--redis',
          'redis://127.0.0.1:1',
          '--port',
          '0',
          '--log-format',
          format,
        ],
        { env: env() },
      ),
    );
    for (const run of await Promise.all(runs)) {
      // It got as far as Redis, so the authorization server was loaded.
      expect(run.stderr).toMatch(/Redis at redis:\/\/127\.0\.0\.1:1 cannot be reached/);
      expect(run.stderr).not.toMatch(/oidc-provider|Unsupported runtime/);
    }
  });

  it('drops that one line only, while loading: every other warning passes through', async () => {
    const seen: unknown[][] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void seen.push(args);
    try {
      await withoutRuntimeWarning(async () => {
        console.warn('\x1b[31;1moidc-provider WARNING: Unsupported runtime. Use Node.js v22.x LTS, or a later LTS release.\x1b[0m');
        console.warn('oidc-provider WARNING: something else', 1);
      });
      console.warn('oidc-provider WARNING: Unsupported runtime. after loading');
    } finally {
      console.warn = warn;
    }
    expect(seen).toEqual([['oidc-provider WARNING: something else', 1], ['oidc-provider WARNING: Unsupported runtime. after loading']]);
  });
});

describe('the single-user default', () => {
  /** Files statically imported from `file` (dynamic `await import()` excluded), transitively. */
  /**
   * What the single-user default can ever load from `file`: its static imports and its lazy
   * `import('…')`s, followed through the project's own modules, except the one import that --hosted
   * gates (serve.ts → ../hosted/command.js).
   */
  function reachableImports(file: string, seen = new Set<string>()): Set<string> {
    if (seen.has(file)) return seen;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    const specs: string[] = [];
    for (const m of text.matchAll(/^(?:import|export)\s[^;]*?from\s+'([^']+)';/gms)) {
      if (/^import\s+type\s/.test(m[0]) || /^export\s+type\s/.test(m[0])) continue;
      specs.push(m[1]!);
    }
    for (const m of text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) if (m[1] !== '../hosted/command.js') specs.push(m[1]!);
    for (const spec of specs) {
      if (spec.startsWith('.')) reachableImports(resolve(dirname(file), spec.replace(/\.js$/, '.ts')), seen);
      else seen.add(`pkg:${spec}`);
    }
    return seen;
  }

  it('loads neither Redis nor the authorization server nor any hosted module (they are imported only on --hosted), not even lazily', () => {
    const loaded = [...reachableImports(join(REPO_ROOT, 'src/cli.ts'))];
    expect(
      loaded.filter(
        (f) => ['pkg:redis', 'pkg:oidc-provider', 'pkg:prom-client', 'pkg:pino'].includes(f) || f.includes('/src/hosted/') || f.endsWith('redis-store.ts'),
      ),
    ).toEqual([]);
    // The walk does see the server itself, so an empty list above means something.
    expect(loaded.some((f) => f.endsWith('src/transport/http.ts'))).toBe(true);
    expect(loaded.some((f) => f.endsWith('src/api/client/http.ts'))).toBe(true); // the HTTP client (undici's parts)
  });
});
