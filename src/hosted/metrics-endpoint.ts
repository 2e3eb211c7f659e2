/**
 * Where Prometheus scrapes hosted mode's metrics (metrics.ts), `GET /metrics`:
 *  - on the main server only with `--metrics-token-file`: the scraper sends
 *    `Authorization: Bearer <the token in the file>` (compared in constant time); otherwise 401.
 *    Without that flag the main server answers /metrics with 404, as any unknown path;
 *  - with `--metrics-port N`, on a second server bound to 127.0.0.1 only, without a token (a
 *    scraper beside the instance, or a sidecar).
 * The numbers name no user, budget or token (metrics.ts), but they say how busy the service is,
 * which is the operator's business only.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearerToken, tokenMatches } from '../transport/http-guards.js';
import type { HostedMetrics } from './metrics.js';

async function answer(metrics: HostedMetrics, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET' });
    res.end();
    return;
  }
  const { contentType, text } = await metrics.scrape();
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : text);
}

function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  res.end(`${text}\n`);
}

/** /metrics on the main server: true when it answered (always, for that path). */
export async function metricsRoute(metrics: HostedMetrics | undefined, token: string | undefined, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  if ((req.url ?? '/').split('?')[0] !== '/metrics') return false;
  if (!metrics || token === undefined) {
    plain(res, 404, 'Not found: metrics are not served here (see --metrics-token-file and --metrics-port)');
    return true;
  }
  const presented = bearerToken(req.headers.authorization);
  if (!tokenMatches(token, presented)) {
    plain(res, 401, 'Unauthorized: send "Authorization: Bearer <the token in --metrics-token-file>"', {
      'www-authenticate': presented === undefined ? 'Bearer realm="metrics"' : 'Bearer realm="metrics", error="invalid_token"',
    });
    return true;
  }
  await answer(metrics, req, res);
  return true;
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** The loopback-only metrics server of --metrics-port. */
export async function serveMetrics(metrics: HostedMetrics, port: number): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    if ((req.url ?? '/').split('?')[0] !== '/metrics') return plain(res, 404, 'Not found: the metrics are at /metrics');
    answer(metrics, req, res).catch(() => {
      if (!res.headersSent) plain(res, 500, 'Internal server error');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
