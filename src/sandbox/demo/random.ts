/**
 * A small seeded random source (mulberry32 over a string-hashed seed), so that the demo
 * budgets are the same for the same --seed: same ids, same amounts, same history shape.
 */

function hashSeed(seed: string | number): number {
  const text = String(seed);
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

export class Random {
  private state: number;

  constructor(seed: string | number) {
    this.state = hashSeed(seed);
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (!items.length) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** One of the items, each as likely as its weight (weights need not sum to 1). */
  weighted<T>(items: readonly T[], weightOf: (item: T) => number): T {
    let total = 0;
    for (const item of items) total += weightOf(item);
    let r = this.next() * total;
    for (const item of items) {
      r -= weightOf(item);
      if (r < 0) return item;
    }
    return items[items.length - 1]!;
  }

  /** A random amount in milliunits between min and max units, rounded to whole cents. */
  cents(minUnits: number, maxUnits: number): number {
    return this.int(minUnits * 100, maxUnits * 100) * 10;
  }

  /** A random amount in milliunits between min and max milliunits, rounded to whole cents. */
  centsBetween(minMilli: number, maxMilli: number): number {
    return this.int(Math.ceil(minMilli / 10), Math.floor(maxMilli / 10)) * 10;
  }

  /** A version-4-shaped UUID from this source. */
  uuid(): string {
    const hex: string[] = [];
    for (let i = 0; i < 16; i++) hex.push(this.int(0, 255).toString(16).padStart(2, '0'));
    hex[6] = ((parseInt(hex[6]!, 16) & 0x0f) | 0x40).toString(16).padStart(2, '0');
    hex[8] = ((parseInt(hex[8]!, 16) & 0x3f) | 0x80).toString(16).padStart(2, '0');
    const h = hex.join('');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
}
