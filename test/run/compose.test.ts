/**
 * The deploy recipe (compose.yaml, deploy/Caddyfile, Dockerfile; docs/hosted.md explains them)
 * stays true to the code: the file parses, every instance runs `serve` with flags the CLI's own
 * usage names and variables hosted mode reads, the files it names are in the repository (the
 * secrets are not, and are kept out of git and of the image), health checks ask /readyz, and the
 * terminator sends to exactly the instances. The Redis URL's scheme is for the Redis code to check.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT, runCli } from '../helpers/cli.js';

interface Service {
  build?: string;
  image?: string;
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string>;
  secrets?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
}

const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');
let compose: { services: Record<string, Service>; secrets: Record<string, { file: string }> };
let instances: [string, Service][];
let usage: string;

beforeAll(async () => {
  compose = parse(read('compose.yaml'), { merge: true });
  instances = Object.entries(compose.services).filter(([, s]) => s.command?.[0] === 'serve');
  const help = await runCli(['serve', '--help']);
  expect(help.code).toBe(0);
  usage = help.stdout;
});

const flagsOf = (command: string[]) => command.filter((a) => a.startsWith('--')).map((a) => a.split('=')[0]!);
const valueOf = (command: string[], flag: string) => command[command.indexOf(flag) + 1];
const seconds = (d: string) => Number(/^(\d+)s$/.exec(d)?.[1] ?? NaN);

describe('compose.yaml', () => {
  it('runs several hosted instances, each with only flags `ynab-mcp serve --help` names', () => {
    expect(instances.length).toBeGreaterThanOrEqual(2);
    const known = new Set([...usage.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]));
    expect(known.has('--drain-seconds')).toBe(true);
    for (const [name, s] of instances) {
      expect(
        flagsOf(s.command!).filter((f) => !known.has(f)),
        name,
      ).toEqual([]);
      expect(s.command, name).toEqual(expect.arrayContaining(['--transport', 'http', '--hosted', '--public-url', '--redis', '--host', '0.0.0.0']));
      // No secret on a command line: the Redis URL carries no password.
      expect(valueOf(s.command!, '--redis'), name).not.toMatch(/@/);
      // Docker's SIGKILL comes after stop_grace_period: it must not cut the drain short.
      expect(seconds(s.stop_grace_period!), name).toBeGreaterThan(Number(valueOf(s.command!, '--drain-seconds')));
    }
  });

  it('gives the instances their secrets as files, under names hosted mode reads', () => {
    const options = read('src/hosted/options.ts');
    for (const [name, s] of instances) {
      for (const [variable, value] of Object.entries(s.environment ?? {})) {
        expect(variable, name).toMatch(/_FILE$/);
        expect(options, `${variable} is read by src/hosted/options.ts`).toContain(`'${variable.replace(/_FILE$/, '')}'`);
        const secret = /^\/run\/secrets\/(.+)$/.exec(value)?.[1];
        expect(s.secrets, `${name} mounts the secret ${value}`).toContain(secret);
      }
    }
  });

  it('names files that are in the repository; the secrets are not, nor in git or the image', () => {
    expect(existsSync(join(REPO_ROOT, 'Dockerfile'))).toBe(true);
    for (const [name, s] of Object.entries(compose.services)) {
      if (s.build !== undefined) expect(existsSync(join(REPO_ROOT, s.build, 'Dockerfile')), name).toBe(true);
      for (const v of s.volumes ?? []) {
        const source = v.split(':')[0]!;
        if (source.startsWith('./')) expect(existsSync(join(REPO_ROOT, source)), `${name}: ${source}`).toBe(true);
      }
    }
    for (const [name, { file }] of Object.entries(compose.secrets)) expect(file, name).toMatch(/^\.\/secrets\/[a-z_]+$/);
    expect(read('.gitignore').split('\n')).toContain('secrets/');
    expect(read('.dockerignore').split('\n')).toContain('secrets');
    // The image runs the package's own bin.
    const bin = JSON.parse(read('package.json')).bin['ynab-mcp'] as string;
    expect(read('Dockerfile')).toMatch(new RegExp(`ENTRYPOINT \\["node", "${bin.replace('.', '\\.')}"\\]`));
    // npm ci builds nothing (the package has no install scripts): the image builds dist/ itself.
    expect(read('Dockerfile')).toMatch(/^RUN npm ci && npm run build && npm prune --omit=dev$/m);
  });

  it('checks each instance at /readyz, and the terminator sends to exactly the instances and checks /readyz too', () => {
    for (const [name, s] of instances) expect(s.healthcheck?.test.join(' '), name).toMatch(/127\.0\.0\.1:8787\/readyz/);
    for (const [, s] of instances) expect(valueOf(s.command!, '--port')).toBe('8787');
    const caddyfile = read('deploy/Caddyfile');
    const upstreams = /reverse_proxy ([^{]+)\{/.exec(caddyfile)![1]!.trim().split(/\s+/);
    expect(upstreams.sort()).toEqual(instances.map(([name]) => `${name}:8787`).sort());
    expect(caddyfile).toMatch(/^\s*health_uri \/readyz$/m);
    // Each request to the instance with the fewest under way (docs/hosted.md, Deploying: the crowd behind round robin and behind this).
    expect(caddyfile).toMatch(/^\s*lb_policy least_conn$/m);
    expect(caddyfile).toMatch(/^\s*flush_interval -1$/m);
    const caddy = compose.services.caddy!;
    expect(caddy.volumes).toContain('./deploy/Caddyfile:/etc/caddy/Caddyfile:ro');
  });

  it('makes a Redis Cluster of three masters, once, before the instances start', () => {
    const redis = Object.entries(compose.services).filter(([, s]) => s.image?.startsWith('redis:') && !s.entrypoint);
    expect(redis.map(([n]) => n)).toHaveLength(3);
    for (const [name, s] of redis) expect((s.command ?? []).join(' '), name).toMatch(/--cluster-enabled yes.*--appendonly yes.*--maxmemory-policy noeviction/s);
    const init = compose.services['redis-cluster-init']!.entrypoint!.join(' ');
    expect(init).toMatch(new RegExp(`--cluster create ${redis.map(([n]) => `${n}:6379`).join(' ')} --cluster-replicas 0`));
    for (const [name, s] of instances)
      expect((s as { depends_on?: Record<string, { condition: string }> }).depends_on?.['redis-cluster-init'], name).toEqual({
        condition: 'service_completed_successfully',
      });
  });
});
