/**
 * Building the page: elements and SVG from data, with every piece of budget text set as text
 * (never parsed as HTML), so a payee or category name can only ever show as itself.
 * Answers write `<` and `>` in budget text as `\u003c` and `\u003e` (for the model reading them,
 * src/mcp/output/sanitize.ts); set as text they cannot be a tag, so the page shows them as typed.
 */

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined | null | ((e: Event) => void)>;

/** Budget text as typed: the angle brackets answers escape, back (only ever set as text or an attribute value). */
export function asTyped(text: string): string {
  return text.replace(/\\u003([ce])/gi, (_m, c: string) => (c.toLowerCase() === 'c' ? '<' : '>'));
}

function fill(el: Element, attrs: Attrs, children: Child[]): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v);
    else el.setAttribute(k, v === true ? '' : asTyped(String(v)));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(asTyped(String(c))) : c);
  }
}

/** An HTML element: `h('td', { class: 'num' }, '$1.00')`. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  fill(el, attrs, children);
  return el;
}

/** An SVG element. */
export function s<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  fill(el, attrs, children);
  return el;
}

/** Replaces an element's content. */
export function show(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  fill(el, {}, children);
}
