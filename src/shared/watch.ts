/** How often an open events stream looks at its budget itself (src/mcp/events/events-stream.ts; the 'watch' read of src/writes/pipeline/reads.ts). */
export const WATCH_MS = 15 * 60_000;

/** The interval watcher's settings as serve's flags and their variables give them (src/events/watcher.ts). */
export interface WatchFlags {
  intervalMs: number;
  share: number;
}

/**
 * --watch-interval M (minutes, 5 to 1440, default 15; YNAB_MCP_WATCH_INTERVAL) and --watch-share P
 * (percent of the token's hour, 1 to 25, default 10; YNAB_MCP_WATCH_SHARE). Seconds (`20s`) are for
 * tests and demos only, with YNAB_MCP_WATCH_SHORT=1. Throws a message naming the flag and the fix.
 */
export function watchFlags(interval: string | undefined, share: string | undefined, env: NodeJS.ProcessEnv): WatchFlags {
  const i = (interval ?? env.YNAB_MCP_WATCH_INTERVAL)?.trim();
  const p = (share ?? env.YNAB_MCP_WATCH_SHARE)?.trim().replace(/%$/, '');
  return { intervalMs: i ? intervalOf(i, env.YNAB_MCP_WATCH_SHORT === '1') : 15 * 60_000, share: p ? shareOf(p) : 0.1 };
}

function intervalOf(text: string, short: boolean): number {
  const seconds = /^(\d+)s$/.exec(text);
  if (seconds && short && Number(seconds[1]) >= 1) return Number(seconds[1]) * 1000;
  if (seconds) throw new Error(`--watch-interval ${text}: an interval in seconds is for tests only (YNAB_MCP_WATCH_SHORT=1); give whole minutes, 5 or more`);
  if (!/^\d+$/.test(text)) throw new Error(`--watch-interval must be a whole number of minutes from 5 to 1440 (default 15), got ${JSON.stringify(text)}`);
  const minutes = Number(text);
  if (minutes < 5)
    throw new Error(`--watch-interval ${minutes}: watched budgets are synced at most every 5 minutes, to keep the hour's requests for you; give 5 or more`);
  if (minutes > 1440) throw new Error(`--watch-interval ${minutes}: at most 1440 minutes (a day)`);
  return minutes * 60_000;
}

function shareOf(text: string): number {
  if (!/^\d+$/.test(text)) throw new Error(`--watch-share must be a whole percentage from 1 to 25 (default 10), got ${JSON.stringify(text)}`);
  const percent = Number(text);
  if (percent < 1 || percent > 25)
    throw new Error(`--watch-share ${percent}: the watcher may take from 1 to 25 % of the token's hourly requests, so interactive calls keep at least 75 %`);
  return percent / 100;
}
