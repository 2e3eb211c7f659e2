// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * Hosted mode's MCP endpoint has the same body limit as the local one, checked as the body is read
 * (before the request queues and its bearer token is checked: src/transport/http-requests.ts, the
 * writes let in first): a body over it gets its 413 over the connection it came on, declared
 * or streamed, never a cut connection (src/transport/http-body.ts). Straight to an instance: the
 * test proxy reads whole bodies first, as no real load balancer must be assumed to.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_BODY_BYTES } from '../../src/transport/http.js';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { postThenRead } from '../helpers/post-then-read.js';

let d: Deployment;
let user: SignedIn;

beforeAll(async () => {
  d = await startDeployment({ instances: 1 });
  user = await signIn(d.mcpUrl, new MemoryOAuthProvider('Body Limit Test'), { login: d.sandbox.state.users[0]!.email });
}, 120_000);

afterAll(async () => {
  await user?.close().catch(() => undefined);
  await d?.close();
});

describe("hosted mode's MCP endpoint", () => {
  it('answers a body over the limit with 413, declared (5 MiB, ten times) or streamed (20 MiB chunked), and keeps serving the user', async () => {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${user.provider.tokens()!.access_token}`,
    };
    const url = `${d.instances[0]!.url}/mcp`;
    const big = Buffer.alloc(5 * 1024 * 1024, 'x');
    const answers: string[] = [];
    for (let i = 0; i < 10; i++) answers.push(await postThenRead(url, headers, big));
    answers.push(await postThenRead(url, headers, Buffer.alloc(20 * 1024 * 1024, 'x'), true));
    expect(answers).toEqual(Array(11).fill(`413 Payload Too Large: Request body must not exceed ${DEFAULT_MAX_BODY_BYTES} bytes`));
    const res = await user.call('list_accounts');
    expect(res.isError, res.content?.[0]?.text).toBeFalsy();
  });
});
