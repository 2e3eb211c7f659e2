/**
 * The form of a cursor, parsed strictly: `<log epoch>.<sequence>`, the epoch lowercase hex (log.ts
 * makes 12 digits), the sequence a whole number without sign, leading zero or fraction. Anything
 * else is refused (InvalidParams at the Events methods): `epoch.1.5` was read as 1.
 */
const CURSOR = /^([0-9a-f]{1,32})\.(0|[1-9][0-9]{0,14})$/;

export function cursorParts(cursor: string): { epoch: string; seq: number } | undefined {
  const m = CURSOR.exec(cursor);
  return m ? { epoch: m[1]!, seq: Number(m[2]) } : undefined;
}
