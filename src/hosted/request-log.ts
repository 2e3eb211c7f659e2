/**
 * Hosted mode's log on stderr: one line per HTTP request, and the instance's other lines (start,
 * Redis trouble, warnings), in the format `--log-format` chose: `text` (the default, as in every
 * other mode: a person reading a terminal) or `json` (one JSON object per line through pino, for
 * a log collector). Both carry the same fields.
 *
 * What a request line holds: the time, a request id (also sent back as `X-Request-Id`), the HTTP
 * method and route, the MCP method and tool, the status, the duration, how many requests went to
 * YNAB for it, and the user as the keyed hash hosted mode names them by (users.ts), never their YNAB
 * id. Never a token, a header, a query string, tool arguments or anything from a budget.
 */
import { format as formatArgs } from 'node:util';
import pino from 'pino';

export type LogFormat = 'text' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];

export interface RequestLine {
  request_id: string;
  /** The HTTP method. */
  method: string;
  /** The route (ids left out): /mcp, /oauth/token, /interaction/:uid, … */
  route: string;
  /** The MCP method, for /mcp. */
  rpc?: string;
  tool?: string;
  status: number;
  duration_ms: number;
  upstream_requests: number;
  /** Waits on Redis for it (commands sent together count once), when it sent any. */
  redis_round_trips?: number;
  /** Redis commands sent for it, when any. */
  redis_commands?: number;
  /** The keyed hash of the user, once authenticated. */
  user?: string;
  /** Admitted MCP POSTs: ms waiting for a slot (on arrival and back from I/O), and out on I/O (YNAB, Redis); json only. */
  queued_ms?: number;
  io_ms?: number;
  /** timed out, aborted */
  note?: string;
}

export interface HostedLog {
  /** A line of the instance's own (what `log` wrote before). */
  line(text: string): void;
  request(r: RequestLine): void;
  /**
   * Sends what libraries write with console.warn and console.error (oidc-provider's warnings)
   * through this log, so that in JSON every line on stderr is JSON.
   */
  adoptConsole(): void;
}

/** Writes to `fd` (stderr), synchronously: lines are whole, and none is lost at an exit. */
export function hostedLog(format: LogFormat, fd = 2): HostedLog {
  if (format === 'text') {
    const out = pino.destination({ fd, sync: true });
    const write = (s: string) => void out.write(`${s}\n`);
    return {
      line: write,
      adoptConsole: () => undefined,
      request: (r) => {
        const what = [r.rpc, r.tool].filter(Boolean).join(' ');
        write(
          `http: ${r.method} ${r.route} ${r.status} ${r.duration_ms}ms${what ? ` ${what}` : ''} upstream=${r.upstream_requests}` +
            `${r.redis_commands ? ` redis=${r.redis_round_trips}/${r.redis_commands}` : ''}` +
            `${r.user ? ` user=${r.user}` : ''} id=${r.request_id}${r.note ? ` (${r.note})` : ''}`,
        );
      },
    };
  }
  const logger = pino(
    {
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    pino.destination({ fd, sync: true }),
  );
  return {
    line: (text) => (/^ynab-mcp: warning:/.test(text) ? logger.warn(text) : logger.info(text)),
    adoptConsole() {
      console.warn = (...args: unknown[]) => logger.warn(formatArgs(...args));
      console.error = (...args: unknown[]) => logger.error(formatArgs(...args));
    },
    request: (r) => (r.status >= 500 ? logger.error : logger.info).call(logger, { ...r }, 'request'),
  };
}
