/**
 * A user's alert settings, set with the `alerts` tool and kept per identity in the state store
 * (`alerts/<identity>/settings.json`): which event types the alerts tool and resource show, a
 * threshold, quiet hours (webhook deliveries wait until they end), and the weekly digest's day,
 * hour and time zone. And, per budget, the cursor of "what changed since I last asked"
 * (`alerts/<identity>/<budget>.cursor`). No budget data: kept unsealed.
 */
import * as z from 'zod';
import { segment } from '../storage/keys.js';
import type { StateStore } from '../storage/store.js';
import { EVENT_NAMES } from './catalog.js';
import { DEFAULT_DIGEST, type DigestTime } from './digest-time.js';

const validZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

export const SettingsSchema = z
  .object({
    types: z.array(z.enum(EVENT_NAMES)).max(EVENT_NAMES.length).optional().describe('The event types to show (default: all).'),
    min_milliunits: z.number().int().min(0).optional().describe('Only alerts of at least this amount (milliunits).'),
    quiet_hours: z
      .object({ from: z.number().int().min(0).max(23), to: z.number().int().min(0).max(23) })
      .strict()
      .optional()
      .describe('Hours (in time_zone) when webhook deliveries wait, e.g. {from: 22, to: 7}.'),
    digest_day: z.number().int().min(1).max(7).optional().describe('Weekly digest day, 1 = Monday … 7 = Sunday (default 1).'),
    digest_hour: z.number().int().min(0).max(23).optional().describe('Weekly digest hour (default 8).'),
    time_zone: z.string().max(64).refine(validZone, 'an IANA time zone, e.g. Europe/Berlin').optional().describe('IANA time zone (default UTC).'),
  })
  .strict();

export type AlertSettings = z.infer<typeof SettingsSchema>;

export function digestOf(s: AlertSettings): DigestTime {
  return { day: s.digest_day ?? DEFAULT_DIGEST.day, hour: s.digest_hour ?? DEFAULT_DIGEST.hour, timeZone: s.time_zone ?? DEFAULT_DIGEST.timeZone };
}

/** Whether `now` is within the quiet hours (which may wrap midnight). */
export function isQuiet(s: AlertSettings, now: Date): boolean {
  const q = s.quiet_hours;
  if (!q || q.from === q.to) return false;
  const hour = Number(new Intl.DateTimeFormat('en-US', { timeZone: s.time_zone ?? 'UTC', hour: '2-digit', hourCycle: 'h23' }).format(now));
  return q.from < q.to ? hour >= q.from && hour < q.to : hour >= q.from || hour < q.to;
}

const enc = new TextEncoder();

export class AlertSettingsStore {
  constructor(
    private readonly store: StateStore,
    private readonly identity: () => Promise<string>,
  ) {}

  private async key(name: string): Promise<string> {
    return `alerts/${segment(await this.identity())}/${name}`;
  }

  async get(): Promise<AlertSettings> {
    const bytes = await this.store.get(await this.key('settings.json'));
    if (!bytes) return {};
    const parsed = SettingsSchema.safeParse(JSON.parse(Buffer.from(bytes).toString('utf8')));
    return parsed.success ? parsed.data : {};
  }

  /** Merges `changes` into the settings (a null member removes it); answers the settings after. */
  async set(changes: Record<string, unknown>): Promise<AlertSettings> {
    const key = await this.key('settings.json');
    return this.store.update(key, (bytes) => {
      const current = bytes ? (JSON.parse(Buffer.from(bytes).toString('utf8')) as Record<string, unknown>) : {};
      const merged: Record<string, unknown> = { ...current };
      for (const [k, v] of Object.entries(changes)) {
        if (v === null) delete merged[k];
        else if (v !== undefined) merged[k] = v;
      }
      const next = SettingsSchema.parse(merged);
      return { value: enc.encode(JSON.stringify(next)), result: next };
    });
  }

  async cursor(budgetId: string): Promise<string | undefined> {
    const bytes = await this.store.get(await this.key(`${segment(budgetId)}.cursor`));
    return bytes ? Buffer.from(bytes).toString('utf8') : undefined;
  }

  async setCursor(budgetId: string, cursor: string): Promise<void> {
    await this.store.set(await this.key(`${segment(budgetId)}.cursor`), enc.encode(cursor));
  }
}
