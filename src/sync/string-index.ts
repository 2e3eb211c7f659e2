/**
 * The index of each string met so far, in the order met, while a copy is saved (columnar-codec.ts,
 * uuid-table.ts): the strings in a list (the copy's own) and an open-addressed table of their
 * indices, hashed over their text. A Map of 110,000 UUIDs took 3.7 MB of heap (measured), more
 * while it grew, of the 20 MB a 100,000-transaction copy's save held while it ran (issue 61); this
 * holds a list of 110,000 references and 256k int32 slots. Each column's other strings (memos,
 * import ids) had a Map too.
 */
export class StringIndex {
  private readonly list: string[] = [];
  private slots = new Int32Array(16).fill(-1);

  get size(): number {
    return this.list.length;
  }

  has(v: string): boolean {
    return this.get(v) !== undefined;
  }

  get(v: string): number | undefined {
    const mask = this.slots.length - 1;
    for (let s = hashOf(v) & mask; ; s = (s + 1) & mask) {
      const at = this.slots[s]!;
      if (at < 0) return undefined;
      if (this.list[at] === v) return at;
    }
  }

  /** Adds `v`, not in yet, at the next index. */
  add(v: string): void {
    // At most half full, so a probe ends soon.
    if ((this.list.length + 1) * 2 > this.slots.length) this.grow();
    this.place(v, this.list.push(v) - 1);
  }

  private place(v: string, at: number): void {
    const mask = this.slots.length - 1;
    let s = hashOf(v) & mask;
    while (this.slots[s]! >= 0) s = (s + 1) & mask;
    this.slots[s] = at;
  }

  private grow(): void {
    this.slots = new Int32Array(this.slots.length * 2).fill(-1);
    this.list.forEach((v, at) => this.place(v, at));
  }
}

/** FNV-1a over the text: every character counts (UUIDs that share a prefix spread too). */
function hashOf(v: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < v.length; i++) h = Math.imul(h ^ v.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
