/**
 * Which of a few amounts add up exactly to a target (integer milliunits): the subsets that
 * explain a reconciliation's difference. Meet in the middle: the sums of every subset of each
 * half (at most 2^20 each, for at most 40 amounts), one half sorted, the other looked up in it.
 * Deterministic: the smallest subsets first, then by the positions they take (earlier amounts
 * first), so one input always gives one answer.
 */

/** The most amounts looked at (2^20 subsets per half). */
export const SUBSET_MAX = 40;

/** Room per sum for a subset's size in a sorted key: sums are keyed sum * 64 + size (size ≤ 20). */
const SLOTS = 64;

const popcount = (m: number): number => {
  let n = 0;
  for (let x = m; x; x &= x - 1) n++;
  return n;
};

/** Every subset's sum of `amounts` (at most 20), indexed by its bit mask. */
function sums(amounts: readonly number[]): Float64Array {
  const out = new Float64Array(1 << amounts.length);
  for (let m = 1; m < out.length; m++) {
    const low = m & -m;
    out[m] = out[m ^ low]! + amounts[31 - Math.clz32(low)]!;
  }
  return out;
}

/** First index of `sorted` whose value is at least `x`. */
function lowerBound(sorted: Float64Array, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The smallest mask of `all` with this sum and size (there is one: the key was found). */
function maskOf(all: Float64Array, sum: number, size: number): number {
  for (let m = 0; m < all.length; m++) if (all[m] === sum && popcount(m) === size) return m;
  return -1;
}

/**
 * Up to `limit` subsets (as positions in `amounts`) whose sum is exactly `target`, smallest first.
 * `amounts` beyond SUBSET_MAX are not looked at (the caller picks which to give). An empty subset
 * is never an answer.
 */
export function exactSubsets(amounts: readonly number[], target: number, limit = 3): number[][] {
  const xs = amounts.slice(0, SUBSET_MAX);
  if (!xs.length || target === 0) return [];
  const half = xs.length >> 1;
  const left = xs.slice(0, half);
  const right = xs.slice(half);
  const leftSums = sums(left);
  // The left half keyed by sum and size, sorted: the smallest left subset for a sum comes first.
  const keys = new Float64Array(leftSums.length);
  for (let m = 0; m < keys.length; m++) keys[m] = leftSums[m]! * SLOTS + popcount(m);
  keys.sort();
  const rightSums = sums(right);
  // The best few (size, right mask, left size), in a small sorted list.
  const best: { size: number; right: number; leftSize: number; leftSum: number }[] = [];
  for (let r = 0; r < rightSums.length; r++) {
    const want = target - rightSums[r]!;
    const i = lowerBound(keys, want * SLOTS);
    if (i >= keys.length || keys[i]! >= want * SLOTS + SLOTS) continue;
    const leftSize = keys[i]! - want * SLOTS;
    const size = leftSize + popcount(r);
    if (size === 0) continue;
    if (best.length >= limit && size >= best[best.length - 1]!.size) continue;
    best.push({ size, right: r, leftSize, leftSum: want });
    best.sort((a, b) => a.size - b.size || a.right - b.right);
    if (best.length > limit) best.pop();
  }
  return best.map((b) => {
    const leftMask = maskOf(leftSums, b.leftSum, b.leftSize);
    const picked: number[] = [];
    for (let i = 0; i < left.length; i++) if (leftMask & (1 << i)) picked.push(i);
    for (let i = 0; i < right.length; i++) if (b.right & (1 << i)) picked.push(half + i);
    return picked;
  });
}
