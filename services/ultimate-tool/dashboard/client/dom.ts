// Building DOM nodes from data, safely: every string becomes a Text node (textContent), never
// markup — nothing from the API is ever parsed as HTML. Attributes are set one by one.
export type Child = Node | string | number | boolean | null | undefined;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  append(node, ...children);
  return node;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function clear(node: Node): void {
  while (node.firstChild) node.removeChild(node.firstChild);
}

/** A link to a dashboard route (hash routing: `#/runs`, `#/run/<id>`, …). */
export function link(hash: string, text: string, attrs: Record<string, string> = {}): HTMLAnchorElement {
  return el('a', { href: hash, ...attrs }, text);
}

/** A value as short text: primitives as they are, objects as compact JSON (still text). */
export function show(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** A two-column table of an object's fields. */
export function fields(obj: Record<string, unknown>, attrs: Record<string, string> = {}): HTMLTableElement {
  const body = el('tbody');
  for (const [k, v] of Object.entries(obj)) body.appendChild(el('tr', { 'data-field': k }, el('th', {}, k), el('td', {}, show(v))));
  return el('table', { class: 'fields', ...attrs }, body);
}

/** A table with a header row; `cells` turns one item into its row's cells. */
export function table<T>(headers: string[], items: T[], cells: (item: T) => Child[], attrs: Record<string, string> = {}): HTMLTableElement {
  const head = el('thead', {}, el('tr', {}, ...headers.map((h) => el('th', {}, h))));
  const body = el('tbody');
  for (const item of items) body.appendChild(el('tr', {}, ...cells(item).map((c) => el('td', {}, c))));
  return el('table', attrs, head, body);
}

/** Pretty JSON in a <pre>, as text. */
export function json(value: unknown, attrs: Record<string, string> = {}): HTMLPreElement {
  return el('pre', { class: 'json', ...attrs }, JSON.stringify(value, null, 2));
}

export function statusBadge(status: string, attrs: Record<string, string> = {}): HTMLSpanElement {
  return el('span', { class: `status status-${status.replace(/[^a-z_]/g, '')}`, ...attrs }, status);
}
