/**
 * The occurrence log of one budget: what each scan found (detect.ts) turned into events that fire
 * once. A condition whose key is not open yet fires (a new occurrence, the next sequence number);
 * while it holds, it stays open and fires nothing; when a scan no longer finds it, it clears, and
 * if it comes back it fires again. The log keeps the last MAX_KEPT occurrences for replay; a cursor
 * older than those gets `truncated`.
 *
 * Kept in the state store, sealed (it holds budget names): `events/<identity>/<budget>.log`, one
 * atomic update per scan, so two processes (or hosted instances) scanning at once still fire each
 * occurrence once, and a restart loses and repeats nothing. The log's `epoch` is random when it is
 * made: a cursor from another log (removed, or another budget) is told apart and truncated.
 */
import { randomBytes } from 'node:crypto';
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import type { Sealer } from '../sync/seal.js';
import { segment } from '../storage/keys.js';
import type { StateStore } from '../storage/store.js';
import type { EventName } from './catalog.js';
import type { Condition } from './detect.js';
import { cursorParts } from './cursor.js';

export const EVENTS_MAGIC = Buffer.from('YMCPE1\n');

/** Occurrences kept per budget for replay. */
export const MAX_KEPT = 500;

export interface Occurrence {
  eventId: string;
  name: EventName;
  /** ISO 8601, when the scan found it. */
  timestamp: string;
  data: Record<string, unknown>;
  /** Its place in the log. */
  seq: number;
}

export interface LogState {
  v: 1;
  epoch: string;
  /** The last sequence number given. */
  seq: number;
  /** Open keys → the eventId that opened them. */
  open: Record<string, string>;
  /** Levels that must rise to fire again, by type. */
  levels: Record<string, number>;
  /** The last MAX_KEPT occurrences, oldest first. */
  events: Occurrence[];
}

/**
 * The log is kept compressed, then sealed: its JSON repeats every occurrence's field names and
 * budget names, and was about 10 kB of a hosted user's Redis memory as text, about a quarter of
 * that compressed. A leading byte tells the forms apart: JSON (as earlier versions wrote) starts with `{`.
 */
const BROTLI = 1;

function logBytes(state: LogState): Buffer {
  const json = Buffer.from(JSON.stringify(state));
  const packed = brotliCompressSync(json, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: json.length } });
  return Buffer.concat([Buffer.from([BROTLI]), packed]);
}

function logOf(bytes: Buffer): LogState {
  const json = bytes[0] === BROTLI ? brotliDecompressSync(bytes.subarray(1)) : bytes;
  return JSON.parse(json.toString('utf8')) as LogState;
}

const fresh = (): LogState => ({ v: 1, epoch: randomBytes(6).toString('hex'), seq: 0, open: {}, levels: {}, events: [] });

/** Applies one scan to the log: the occurrences it fires, and the log after it. Pure (`state` is left as it was), so an update may retry it. */
export function applyScan(state: LogState, found: readonly Condition[], at: Date): { state: LogState; fired: Occurrence[] } {
  const next: LogState = { ...state, open: {}, levels: {}, events: [...state.events] };
  const fired: Occurrence[] = [];
  const levels: Record<string, number> = {};
  for (const c of found) if (c.level !== undefined) levels[c.name] = Math.max(levels[c.name] ?? 0, c.level);
  for (const c of found) {
    const was = state.open[c.key];
    if (was) {
      next.open[c.key] = was;
      continue;
    }
    if (c.level !== undefined && c.level <= (state.levels[c.name] ?? 0)) {
      // Lower or the same: no growth, nothing fires; the key is open so it does not fire later either.
      next.open[c.key] = 'level';
      continue;
    }
    next.seq += 1;
    const o: Occurrence = { eventId: `evt_${state.epoch}_${next.seq}`, name: c.name, timestamp: at.toISOString(), data: c.data, seq: next.seq };
    next.open[c.key] = o.eventId;
    next.events.push(o);
    fired.push(o);
  }
  next.levels = levels;
  if (next.events.length > MAX_KEPT) next.events.splice(0, next.events.length - MAX_KEPT);
  return { state: next, fired };
}

export class OccurrenceLog {
  constructor(
    private readonly store: StateStore,
    private readonly sealer: Sealer,
    private readonly identity: () => Promise<string>,
  ) {}

  private async key(budgetId: string): Promise<string> {
    return `events/${segment(await this.identity())}/${segment(budgetId)}.log`;
  }

  private decode(key: string, sealKey: Buffer, bytes: Uint8Array | undefined): LogState {
    if (!bytes) return fresh();
    return logOf(this.sealer.openSync(sealKey, bytes, key));
  }

  /** Records one scan of the budget; answers what fired (nothing when every condition was open already). */
  async record(budgetId: string, found: readonly Condition[], at: Date = new Date()): Promise<{ state: LogState; fired: Occurrence[] }> {
    const key = await this.key(budgetId);
    const sealKey = await this.sealer.key();
    return this.store.update(key, (bytes) => {
      // Opened once: applyScan leaves the state it is given as it was (each scan opened it twice).
      const before = this.decode(key, sealKey, bytes);
      const result = applyScan(before, found, at);
      const same = bytes && !result.fired.length && sameKeys(before, result.state);
      const value = same ? undefined : this.sealer.sealSync(sealKey, logBytes(result.state), key);
      return { value, result };
    });
  }

  /** The log as kept (an empty one, not yet stored, when the budget was never scanned). */
  async read(budgetId: string): Promise<LogState> {
    const key = await this.key(budgetId);
    return this.decode(key, await this.sealer.key(), await this.store.get(key));
  }
}

/** Whether a scan left what is open, and the levels, as they were: then nothing is written. */
function sameKeys(a: LogState, b: LogState): boolean {
  return JSON.stringify([a.open, a.levels]) === JSON.stringify([b.open, b.levels]);
}

/** A position in a budget's log, opaque to clients: `<epoch>.<seq>`. */
export const cursorOf = (state: Pick<LogState, 'epoch'>, seq: number): string => `${state.epoch}.${seq}`;

export interface Page {
  events: Occurrence[];
  cursor: string;
  truncated: boolean;
  hasMore: boolean;
  /** How many more pass `keep` after `cursor` (0 when `hasMore` is false). */
  remaining: number;
  /** How many the page passed over because they did not pass `keep`. */
  passed: number;
}

/** The position a cursor names in this log; undefined for a cursor of another log, or forged. */
export function seqOf(state: LogState, cursor: string): number | undefined {
  const parts = cursorParts(cursor);
  return parts && parts.epoch === state.epoch && parts.seq <= state.seq ? parts.seq : undefined;
}

/** Just before the oldest occurrence kept: a first call from here shows every occurrence the log holds. */
export const logStart = (state: LogState): string => cursorOf(state, (state.events[0]?.seq ?? state.seq + 1) - 1);

/**
 * The occurrences after `cursor` that pass `keep`, at most `max`, and how many more there are. A
 * null cursor starts from now (no events: the SEP's bootstrap). A cursor of another log, or older
 * than what is kept, is `truncated`: the page starts from the oldest kept (or from now, for another
 * log). `floorMs`: nothing older (maxAgeMs). The cursor returned is after the last occurrence the
 * page looked at, never past one it did not show: a page cut at `max` resumes where it stopped.
 */
export function pageAfter(state: LogState, cursor: string | null | undefined, keep: (o: Occurrence) => boolean, max: number, floorMs?: number): Page {
  const now = { cursor: cursorOf(state, state.seq), hasMore: false, remaining: 0, passed: 0 };
  if (cursor === null || cursor === undefined) return { events: [], truncated: false, ...now };
  const seq = seqOf(state, cursor);
  if (seq === undefined) return { events: [], truncated: true, ...now };
  const oldest = state.events[0]?.seq ?? state.seq + 1;
  let truncated = seq < oldest - 1;
  let after = state.events.filter((o) => o.seq > seq);
  if (floorMs !== undefined) {
    const kept = after.filter((o) => Date.parse(o.timestamp) >= floorMs);
    if (kept.length < after.length) truncated = true;
    after = kept;
  }
  const events: Occurrence[] = [];
  let last = seq;
  let i = 0;
  for (; i < after.length && events.length < max; i++) {
    last = after[i]!.seq;
    if (keep(after[i]!)) events.push(after[i]!);
  }
  const remaining = after.slice(i).filter(keep).length;
  // With none left to show, the cursor goes to the end: it passes over the rest too.
  if (!remaining) return { events, truncated, ...now, passed: after.length - events.length };
  return { events, cursor: cursorOf(state, last), truncated, hasMore: true, remaining, passed: i - events.length };
}
