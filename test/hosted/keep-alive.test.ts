// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * Hosted mode keeps an idle connection open longer than a load balancer keeps its side (60 s for
 * most, Node's agent 5 s), and says so in each answer's Keep-Alive header (which HTTP clients
 * such as undici read to retire a connection before the server does): the balancer closes first,
 * so no request is sent on a connection the instance is closing. The local server keeps 5 s.
 */
import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTED_KEEP_ALIVE_TIMEOUT_MS } from '../../src/transport/http.js';
import { startDeployment, type Deployment } from '../helpers/hosted.js';

let d: Deployment;

beforeAll(async () => {
  d = await startDeployment({ instances: 1 });
}, 120_000);

afterAll(async () => {
  await d?.close();
});

/** The Keep-Alive header of an answer from `url`, over a kept-alive connection. */
function keepAliveOf(url: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { connection: 'keep-alive' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.headers['keep-alive'] as string | undefined));
    }).on('error', reject);
  });
}

describe('hosted keep-alive', () => {
  it('keeps an idle connection 65 s, longer than a load balancer keeps its side', async () => {
    expect(HOSTED_KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThan(60_000);
    expect(await keepAliveOf(`${d.instances[0]!.url}/.well-known/oauth-protected-resource/mcp`)).toBe('timeout=65');
  });
});
