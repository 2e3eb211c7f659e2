/**
 * Starts a sandbox on a free port for a test file, over real HTTP, and a tiny caller for it.
 */
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/app.js';

export interface Call {
  status: number;
  headers: Headers;
  body: any;
}

export interface TestSandbox extends RunningSandbox {
  /** Calls `METHOD /v1<path>` with the full-access token (or `token`), JSON in and out. */
  call(method: string, path: string, body?: unknown, token?: string | null): Promise<Call>;
  get(path: string, token?: string | null): Promise<Call>;
}

export async function testSandbox(opts: SandboxOptions = {}): Promise<TestSandbox> {
  const sb = await startSandbox({ seed: 'test', log: () => {}, ...opts });
  const call = async (method: string, path: string, body?: unknown, token?: string | null): Promise<Call> => {
    const headers: Record<string, string> = { accept: 'application/json' };
    const bearer = token === undefined ? sb.accessToken : token;
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    let payload: string | undefined;
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await fetch(`${sb.baseUrl}${path}`, { method, headers, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Non-JSON bodies are returned as text; tests assert on them.
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
  return Object.assign(sb, { call, get: (path: string, token?: string | null) => call('GET', path, undefined, token) });
}
