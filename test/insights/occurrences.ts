/**
 * The tests' own expansion of a scheduled transaction into dated occurrences (date_next, then
 * date_first's lattice after it), and the order of a day's occurrences (outflows before inflows,
 * then by id), written apart from src/insights/core/schedule.ts.
 */
/** A day's occurrences: outflows before inflows, then by id (as forecast counts a day). */
export function byDay(a: { date: string; s: any }, b: { date: string; s: any }): number {
  return (a.date < b.date ? -1 : a.date > b.date ? 1 : 0) || a.s.amount - b.s.amount || (a.s.id < b.s.id ? -1 : a.s.id > b.s.id ? 1 : 0);
}

/** The test's own expansion of a schedule: date_next, then date_first's lattice after it. */
export function occurrences(s: any, from: string, until: string): string[] {
  const day = (d: string, add: number) => new Date(Date.parse(`${d}T00:00:00Z`) + add * 86_400_000).toISOString().slice(0, 10);
  const month = (d: string, add: number, dayOfMonth = Number(d.slice(8))) => {
    const [y, m] = d.split('-').map(Number) as [number, number];
    const first = new Date(Date.UTC(y, m - 1 + add, 1));
    const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
    return `${first.toISOString().slice(0, 8)}${String(Math.min(dayOfMonth, last)).padStart(2, '0')}`;
  };
  const step: Record<string, (n: number) => string> = {
    daily: (n) => day(s.date_first, n),
    weekly: (n) => day(s.date_first, 7 * n),
    everyOtherWeek: (n) => day(s.date_first, 14 * n),
    every4Weeks: (n) => day(s.date_first, 28 * n),
    twiceAMonth: (n) => (n % 2 ? month(s.date_first, Math.floor(n / 2), Number(s.date_first.slice(8)) + 15) : month(s.date_first, n / 2)),
    monthly: (n) => month(s.date_first, n),
    everyOtherMonth: (n) => month(s.date_first, 2 * n),
    every3Months: (n) => month(s.date_first, 3 * n),
    every4Months: (n) => month(s.date_first, 4 * n),
    twiceAYear: (n) => month(s.date_first, 6 * n),
    yearly: (n) => month(s.date_first, 12 * n),
    everyOtherYear: (n) => month(s.date_first, 24 * n),
  };
  const out = s.date_next >= from && s.date_next <= until ? [s.date_next] : [];
  if (s.frequency === 'never') return out;
  for (let n = 0; ; n++) {
    const d = step[s.frequency]!(n);
    if (d > until) break;
    if (d > s.date_next && d >= from) out.push(d);
  }
  return out;
}
