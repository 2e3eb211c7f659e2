/**
 * HTTP to the service with undici: a keep-alive pool per origin, a connect timeout and a
 * response timeout above the service's own 30 s limit, the token only in the Authorization
 * header, and a refusal of plain-HTTP base URLs except on the loopback interface.
 */
import { StringDecoder } from 'node:string_decoder';
import { JsonStreamParser } from '../json-stream.js';
import { REPEATED_FIELDS } from '../repeated-fields.js';
import { checkApiBaseUrl, DEFAULT_BASE_URL } from './base-url.js';
import { errors, Pool } from './http.js';
import { NetworkError } from './errors.js';
import type { IoAside } from '../../storage/store.js';

export { checkApiBaseUrl, checkBaseUrl, DEFAULT_BASE_URL } from './base-url.js';

export interface TransportOptions {
  baseUrl?: string;
  connectTimeoutMs?: number;
  /** Time allowed for the answer's headers and, separately, its body. */
  responseTimeoutMs?: number;
  connections?: number;
  userAgent?: string;
  /** Told about every request after it ends (no headers, so never the token): for logs and tests. */
  onRequest?: (info: RequestInfo) => void;
  /** Wraps the wait for each answer: hosted mode's admission hands the request's slot on meanwhile. */
  aside?: IoAside;
}

export interface RequestInfo {
  method: string;
  path: string;
  query: Record<string, string>;
  /** HTTP status, or the network failure. */
  outcome: number | string;
  ms: number;
}

export interface RawRequest {
  method: string;
  /** Path below the base URL, e.g. `/budgets/x/accounts`. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  token: string;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Certificate and TLS handshake failures (OpenSSL's codes and node's ERR_TLS_/ERR_SSL_). */
const TLS_CODE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|^ERR_TLS_|^ERR_SSL_/;

/** Connection failures that happen before anything is sent, and what each means. */
const CONNECT_FAILURES: Record<string, string> = {
  ECONNREFUSED: 'connection refused: nothing listens there',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be looked up; is this machine online?',
  EHOSTUNREACH: 'the host cannot be reached',
  ENETUNREACH: 'the network cannot be reached',
};

/** The error code: undici's own wrapper codes give way to the system or TLS error inside them. */
function codeOf(e: unknown): string | undefined {
  const err = e as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const own = typeof err?.code === 'string' ? err.code : undefined;
  const inner = typeof err?.cause?.code === 'string' ? err.cause.code : undefined;
  return own !== undefined && !(own.startsWith('UND_ERR') && inner !== undefined) ? own : (inner ?? own);
}

/** Whether a failure happened before the request was written (so a write cannot have been applied). */
function beforeSending(code: string | undefined): boolean {
  return code === 'UND_ERR_CONNECT_TIMEOUT' || (code !== undefined && (code in CONNECT_FAILURES || TLS_CODE.test(code)));
}

/** A network failure as a message naming where the client tried to go (never a header, so never the token). */
function classify(e: unknown, sent: boolean, where: URL, connectTimeoutMs: number, answered?: number): NetworkError {
  const at = `${where.protocol}//${where.host}${where.pathname.replace(/\/$/, '')}`;
  const code = codeOf(e);
  if (answered !== undefined) {
    return new NetworkError(
      e instanceof errors.BodyTimeoutError ? 'timeout' : 'reset',
      true,
      `${at} answered ${answered}, and the connection was lost before the rest of the answer${code ? ` (${code})` : ''}`,
      answered,
    );
  }
  if (e instanceof errors.ConnectTimeoutError) return new NetworkError('connect', false, `could not connect to ${at} within ${connectTimeoutMs / 1000} s`);
  if (e instanceof errors.HeadersTimeoutError || e instanceof errors.BodyTimeoutError) {
    return new NetworkError('timeout', true, `${at} did not answer in time`);
  }
  if (code !== undefined && TLS_CODE.test(code)) {
    const detail = ((e as Error).message || (e as { cause?: Error }).cause?.message || '').replace(/\s+/g, ' ').trim();
    return new NetworkError(
      'tls',
      false,
      `the TLS certificate of ${where.host} was not accepted (${code}${detail && !detail.includes(code) ? `: ${detail}` : ''}). ` +
        'This is a certificate problem, not a passing network failure: retrying will not help. If a proxy or security software on this machine ' +
        'intercepts HTTPS, give Node its certificate authority with NODE_EXTRA_CA_CERTS=/path/to/ca.pem',
    );
  }
  if (code !== undefined && code in CONNECT_FAILURES) return new NetworkError('connect', false, `could not reach ${at} (${code}: ${CONNECT_FAILURES[code]})`);
  return new NetworkError('reset', sent, `the connection to ${at} was lost${code ? ` (${code})` : ''}`);
}

/** How much of a body that is not JSON is kept for error messages. */
const TEXT_KEPT = 64 * 1024;

/**
 * The body as JSON, parsed while it arrives (a full budget export is tens of megabytes: it is never
 * held as one string); a body that is not JSON (a proxy's error page, say) is kept as text, its
 * first 64 kB, for the error message.
 */
async function readBody(stream: AsyncIterable<Buffer>): Promise<unknown> {
  const decoder = new StringDecoder('utf8');
  const parser = new JsonStreamParser({ share: REPEATED_FIELDS });
  let json = true;
  let text = '';
  let empty = true;
  const take = (piece: string) => {
    if (!piece) return;
    empty = false;
    if (text.length < TEXT_KEPT) text += piece.slice(0, TEXT_KEPT - text.length);
    if (!json) return;
    try {
      parser.write(piece);
    } catch {
      json = false;
    }
  };
  for await (const chunk of stream) take(decoder.write(chunk));
  take(decoder.end());
  if (empty) return '';
  if (json) {
    try {
      return parser.end();
    } catch {
      // Incomplete JSON: fall through to the text.
    }
  }
  return text;
}

export class Transport {
  readonly baseUrl: URL;
  /**
   * Made at the first request, not with the transport: a hosted instance makes a stack, and so a
   * transport, for each user it serves, and most of their calls are answered from copies without
   * a request to YNAB (making the pool was two thirds of making a user's stack in a restarted
   * instance's first wave of calls, profiled: bench/RESULTS.md, hosted).
   */
  private made: Pool | undefined;
  private closed = false;
  private readonly basePath: string;
  private readonly responseTimeoutMs: number;
  private readonly connectTimeoutMs: number;

  constructor(private readonly opts: TransportOptions = {}) {
    this.baseUrl = checkApiBaseUrl(opts.baseUrl ?? DEFAULT_BASE_URL);
    this.basePath = this.baseUrl.pathname.replace(/\/$/, '');
    this.responseTimeoutMs = opts.responseTimeoutMs ?? 40_000;
    this.connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
  }

  private get pool(): Pool {
    // Closed before any request: refused as a closed pool refuses one.
    if (this.closed && !this.made) throw new errors.ClientDestroyedError();
    return (this.made ??= new Pool(this.baseUrl.origin, {
      connections: this.opts.connections ?? 8,
      keepAliveTimeout: 30_000,
      connect: { timeout: this.connectTimeoutMs },
    }));
  }

  async request(req: RawRequest): Promise<RawResponse> {
    const qs = req.query && Object.keys(req.query).length ? `?${new URLSearchParams(req.query)}` : '';
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Bearer ${req.token}`,
      'user-agent': this.opts.userAgent ?? 'ynab-mcp',
    };
    let payload: string | undefined;
    if (req.body !== undefined) {
      payload = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    let sent = false;
    let answered: number | undefined;
    const started = Date.now();
    const report = (outcome: number | string) =>
      this.opts.onRequest?.({ method: req.method, path: req.path, query: req.query ?? {}, outcome, ms: Date.now() - started });
    try {
      // Async: a pool closed before any request refuses as a rejection, as undici's own does.
      const asking = async () =>
        this.pool.request({
          method: req.method as 'GET',
          path: `${this.basePath}${req.path}${qs}`,
          headers,
          body: payload,
          headersTimeout: this.responseTimeoutMs,
          bodyTimeout: this.responseTimeoutMs,
        });
      // The wait for YNAB's answer is a wait (hosted: the slot goes on); reading its body is work.
      const res = await (this.opts.aside ? this.opts.aside(asking) : asking());
      sent = true;
      answered = res.statusCode;
      const body = await readBody(res.body);
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
      report(res.statusCode);
      return { status: res.statusCode, headers: out, body };
    } catch (e) {
      // undici rejects before `sent` for failures while connecting; anything after writing may have been applied.
      const failure = classify(e, sent || !beforeSending(codeOf(e)), this.baseUrl, this.connectTimeoutMs, answered);
      report(failure.failure);
      throw failure;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.made?.close();
  }
}
