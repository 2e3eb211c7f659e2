/**
 * Limits per principal on what the Events extension keeps for it (SEP-3415 `ResourceExhausted`,
 * -32025): live webhook subscriptions (each a sealed record and a signed POST per occurrence: one
 * principal held 1,001, and one event then made 500 POSTs), open `events/stream`s (each a held
 * request and a listener), and verification handshakes per destination host a minute (the SEP's
 * "rate-limited per destination host"). Operators set them with YNAB_MCP_MAX_WEBHOOKS,
 * YNAB_MCP_MAX_STREAMS and YNAB_MCP_WEBHOOK_VERIFY_PER_HOST (docs/alerts.md, docs/hosted.md).
 */

export interface Caps {
  /** Live webhook subscriptions per principal (in the store: every instance counts the same ones). */
  webhooks: number;
  /** Open `events/stream` requests per principal, on one instance (process). */
  streams: number;
  /** Verification POSTs to one host a minute, from one instance (process). */
  verifyPerHost: number;
}

export const DEFAULT_CAPS: Caps = { webhooks: 50, streams: 20, verifyPerHost: 20 };

const ENV: Record<keyof Caps, string> = {
  webhooks: 'YNAB_MCP_MAX_WEBHOOKS',
  streams: 'YNAB_MCP_MAX_STREAMS',
  verifyPerHost: 'YNAB_MCP_WEBHOOK_VERIFY_PER_HOST',
};

/** The caps the environment sets (the rest default); anything but a whole number from 1 to 100,000 is refused, naming the variable. */
export function capsFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<Caps> {
  const caps: Partial<Caps> = {};
  for (const [cap, name] of Object.entries(ENV) as [keyof Caps, string][]) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < 1 || n > 100_000)
      throw new Error(`${name}=${JSON.stringify(raw)} is not a whole number from 1 to 100000 (default ${DEFAULT_CAPS[cap]}; docs/alerts.md)`);
    caps[cap] = n;
  }
  return caps;
}

/** A count of things held at once, up to `max`: take() answers how to give one back, or undefined when none is left. */
export class Slots {
  private held = 0;
  constructor(readonly max: number) {}

  take(): (() => void) | undefined {
    if (this.held >= this.max) return undefined;
    this.held += 1;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.held -= 1;
    };
  }
}
