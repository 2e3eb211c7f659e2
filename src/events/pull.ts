/**
 * Alerts pulled by hosts without the Events extension (issue 59 item 2): what fired in a budget
 * since this client last asked, answered by needs_attention in the default list. One record per
 * (identity, budget, client) in the state store, `alerts/<identity>/<budget>.<client>.pull` (the
 * client a hash of its key, src/mcp/state/caller.ts): the client's cursor in the budget's occurrence log,
 * and the events Events delivered to that client (in an events/poll answer, on an events/stream,
 * or by a webhook of a subscription it made), which its pull answers leave out: each alert reaches
 * a client once, by Events or by the pull. No budget data: kept unsealed.
 */
import { createHash } from 'node:crypto';
import { segment } from '../storage/keys.js';
import type { StateStore } from '../storage/store.js';
import { cursorOf, MAX_KEPT, seqOf, type LogState, type Occurrence } from './log.js';
import type { AlertSettings } from './settings.js';

/** At most this many alerts in one pull answer (the rest: ask again). */
export const PULL_PAGE = 20;

interface PullRecord {
  cursor?: string;
  /** Event ids Events delivered to the client, the last MAX_KEPT (what the log keeps). */
  delivered: string[];
}

const enc = new TextEncoder();

export class PullRecords {
  constructor(
    private readonly store: StateStore,
    private readonly identity: () => Promise<string>,
  ) {}

  private async key(budgetId: string, client: string): Promise<string> {
    const hash = createHash('sha256').update(client).digest('hex').slice(0, 24);
    return `alerts/${segment(await this.identity())}/${segment(budgetId)}.${hash}.pull`;
  }

  private change(key: string, fn: (r: PullRecord) => PullRecord): Promise<void> {
    return this.store.update(key, (bytes) => ({ value: enc.encode(JSON.stringify(fn(recordOf(bytes)))), result: undefined }));
  }

  async get(budgetId: string, client: string): Promise<PullRecord> {
    return recordOf(await this.store.get(await this.key(budgetId, client)));
  }

  /** Notes events Events delivered to the client: its pull answers leave them out. */
  async delivered(budgetId: string, client: string, eventIds: readonly string[]): Promise<void> {
    if (!eventIds.length) return;
    await this.change(await this.key(budgetId, client), (r) => {
      const ids = [...r.delivered.filter((id) => !eventIds.includes(id)), ...eventIds];
      return { ...r, delivered: ids.slice(-MAX_KEPT) };
    });
  }

  /** Moves the client's cursor (after the last alert a pull answer showed). */
  async advance(budgetId: string, client: string, cursor: string): Promise<void> {
    await this.change(await this.key(budgetId, client), (r) => ({ ...r, cursor }));
  }
}

function recordOf(bytes: Uint8Array | undefined): PullRecord {
  if (!bytes) return { delivered: [] };
  const r = JSON.parse(Buffer.from(bytes).toString('utf8')) as Partial<PullRecord>;
  return { ...(typeof r.cursor === 'string' ? { cursor: r.cursor } : {}), delivered: Array.isArray(r.delivered) ? r.delivered : [] };
}

export interface PullPage {
  events: Occurrence[];
  /** After the last alert shown, never past one not shown. */
  cursor: string;
  /** How many more to show after this page. */
  remaining: number;
  /** Passed over: delivered to the client by Events, or left out by the alert settings. */
  delivered: number;
  hidden: number;
  /** A first ask (no place in this log): it starts from now; how many alerts the log keeps from before. */
  earlier?: number;
}

const shownBy = (s: AlertSettings) => (o: Occurrence) =>
  (!s.types || s.types.includes(o.name)) && (s.min_milliunits === undefined || typeof o.data.amount !== 'number' || o.data.amount >= s.min_milliunits);

/**
 * The client's next page after its place. A first ask (no place, or one of a log made anew) starts
 * from now, as the SEP's null cursor does: what is open then is in the answer's own kinds, and
 * "since you last asked" begins there. What Events delivered to the client and what the settings
 * leave out are passed over (and counted).
 */
export function pullPage(state: LogState, record: PullRecord, settings: AlertSettings): PullPage {
  const head = cursorOf(state, state.seq);
  const at = record.cursor === undefined ? undefined : seqOf(state, record.cursor);
  if (at === undefined) return { events: [], cursor: head, remaining: 0, delivered: 0, hidden: 0, earlier: state.events.length };
  const after = state.events.filter((o) => o.seq > at);
  const delivered = new Set(record.delivered);
  const shown = shownBy(settings);
  const page: PullPage = { events: [], cursor: head, remaining: 0, delivered: 0, hidden: 0 };
  let last = at;
  for (const [i, o] of after.entries()) {
    if (delivered.has(o.eventId)) page.delivered++;
    else if (!shown(o)) page.hidden++;
    else if (page.events.length < PULL_PAGE) page.events.push(o);
    else {
      page.remaining = after.slice(i).filter((x) => !delivered.has(x.eventId) && shown(x)).length;
      page.cursor = cursorOf(state, last);
      return page;
    }
    last = o.seq;
  }
  return page;
}
