/**
 * A small SVG line chart for month-by-month figures: evenly spaced months, a y axis in whole
 * currency units on "nice" steps, one line per series (the last segment dashed when the last
 * month is still running), and a point per month whose tooltip is the result's formatted figure.
 */
import { s } from './dom.js';

export interface Series {
  name: string;
  /** CSS colour (a custom property). */
  color: string;
  /** Milliunits per month. */
  values: number[];
  /** The result's formatted figures, for tooltips. */
  labels: string[];
}

export interface ChartOptions {
  months: string[];
  series: Series[];
  /** Axis labels (whole units in the budget's currency). */
  axis(milliunits: number): string;
  monthLabel(month: string): string;
  /** The axis label under a point, when not every point has one (default: monthLabel). */
  tick?(month: string, index: number): string;
  /** The last month is not over. */
  partial: boolean;
  /** Start the axis at zero (flows); net worth follows its own range. */
  fromZero: boolean;
  title: string;
  /** A point to mark with a dashed rule and a label (the forecast's first day below zero). */
  mark?: { index: number; label: string };
}

const W = 640;
const H = 210;
const LEFT = 78;
const RIGHT = 24;
const TOP = 10;
const BOTTOM = 26;

/** A step of 1, 2 or 5 times a power of ten, in whole units (1000 milliunits) at least. */
function niceStep(span: number): number {
  const raw = Math.max(span / 4, 1000);
  const mag = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * mag >= raw) return m * mag;
  return 10 * mag;
}

export function lineChart(o: ChartOptions): SVGSVGElement {
  const all = o.series.flatMap((x) => x.values);
  let lo = Math.min(...all);
  let hi = Math.max(...all);
  if (o.fromZero) {
    lo = Math.min(lo, 0);
    hi = Math.max(hi, 0);
  }
  const step = niceStep(hi - lo || Math.abs(hi) || 1000);
  lo = Math.floor(lo / step) * step;
  hi = Math.ceil(hi / step) * step;
  if (hi === lo) hi = lo + step;
  const x = (i: number) => LEFT + (o.months.length === 1 ? (W - LEFT - RIGHT) / 2 : (i * (W - LEFT - RIGHT)) / (o.months.length - 1));
  const y = (v: number) => TOP + ((hi - v) * (H - TOP - BOTTOM)) / (hi - lo);

  const svg = s('svg', { class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': o.title });
  svg.append(s('title', {}, o.title));
  for (let v = lo; v <= hi; v += step) {
    svg.append(
      s('line', { class: v === 0 ? 'zero' : 'grid', x1: LEFT, x2: W - RIGHT, y1: y(v), y2: y(v) }),
      s('text', { x: LEFT - 6, y: y(v) + 4, 'text-anchor': 'end' }, o.axis(v)),
    );
  }
  o.months.forEach((m, i) => svg.append(s('text', { x: x(i), y: H - 8, 'text-anchor': 'middle' }, o.tick ? o.tick(m, i) : o.monthLabel(m))));
  for (const series of o.series) {
    const pts = series.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`);
    const solid = o.partial && pts.length > 1 ? pts.slice(0, -1) : pts;
    if (solid.length > 1) svg.append(s('polyline', { class: 'line', points: solid.join(' '), style: `stroke:${series.color}` }));
    if (o.partial && pts.length > 1) svg.append(s('polyline', { class: 'line partial', points: pts.slice(-2).join(' '), style: `stroke:${series.color}` }));
    series.values.forEach((v, i) =>
      svg.append(
        s(
          'circle',
          { cx: x(i), cy: y(v), r: 3.5, style: `fill:${series.color}` },
          s('title', {}, `${series.name}, ${o.monthLabel(o.months[i]!)}: ${series.labels[i]}`),
        ),
      ),
    );
  }
  if (o.mark) {
    const at = x(o.mark.index);
    svg.append(
      s('line', { class: 'mark', x1: at, x2: at, y1: TOP, y2: H - BOTTOM }, s('title', {}, o.mark.label)),
      s('text', { class: 'mark', x: at + 4, y: TOP + 10 }, o.mark.label),
    );
  }
  return svg;
}
