// Any API value as tables, never as a JSON blob: an object becomes a two-column table of its
// fields, a list of objects a table with one column per field, a list of plain values one line.
// Numbers are written by their field's name (format.ts): addresses and bytes in hex, durations
// rounded. Where a record carries both `x` and `x_hex`, only `x` is shown (in hex already).
import { type Child, el } from './dom.js';
import { HEX_BYTE_STRING_FIELDS, formatNumber, hexByteString } from './format.js';

const DEPTH_MAX = 6;

function visibleKeys(obj: Record<string, unknown>): string[] {
  return Object.keys(obj).filter((k) => !(k.endsWith('_hex') && k.slice(0, -4) in obj && typeof obj[k.slice(0, -4)] === 'number'));
}

/**
 * The value shown for field `k`: where the record also carries `k_hex`, that text (the API's own
 * hex: `from` 49440 beside `from_hex` "$C120" is shown as $C120, whatever the field is called);
 * a string of hex byte pairs in a memory record (`expected`, `actual`, `mask`, `*_hex` bytes) as
 * $-bytes.
 */
function shownValue(obj: Record<string, unknown>, k: string): unknown {
  const hex = obj[`${k}_hex`];
  if (typeof obj[k] === 'number' && typeof hex === 'string') return hex;
  const v = obj[k];
  const memoryRecord = 'address' in obj || 'address_hex' in obj || 'from' in obj;
  if (typeof v === 'string' && memoryRecord && HEX_BYTE_STRING_FIELDS.has(k)) return hexByteString(v);
  return v;
}

/** One value as text or nested tables; `field` is the name it is stored under. */
export function valueNode(value: unknown, field?: string, depth = 0): Child {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'number') return formatNumber(value, field);
  if (typeof value === 'string' || typeof value === 'boolean') return String(value);
  if (depth >= DEPTH_MAX) return '…';
  if (Array.isArray(value)) {
    if (value.length === 0) return 'none';
    if (value.every((v) => v === null || typeof v !== 'object'))
      return value.map((v) => (typeof v === 'number' ? formatNumber(v, field) : String(v ?? '—'))).join(', ');
    return listTable(value, depth + 1);
  }
  return fieldsTable(value as Record<string, unknown>, {}, depth + 1);
}

/** An object's fields, one row each. */
export function fieldsTable(obj: Record<string, unknown>, attrs: Record<string, string> = {}, depth = 0): HTMLTableElement {
  const body = el('tbody');
  for (const k of visibleKeys(obj))
    body.appendChild(el('tr', { 'data-field': k }, el('th', {}, k), el('td', {}, valueNode(shownValue(obj, k), k, depth))));
  return el('table', { class: 'fields', ...attrs }, body);
}

/** A list of records, one row each, one column per field any of them has. */
export function listTable(items: unknown[], depth = 0, attrs: Record<string, string> = {}): HTMLTableElement {
  const keys: string[] = [];
  for (const it of items)
    if (it && typeof it === 'object' && !Array.isArray(it))
      for (const k of visibleKeys(it as Record<string, unknown>)) if (!keys.includes(k)) keys.push(k);
  const head = el('thead', {}, el('tr', {}, ...(keys.length ? keys : ['value']).map((k) => el('th', {}, k))));
  const body = el('tbody');
  for (const it of items) {
    const rec = it && typeof it === 'object' && !Array.isArray(it) ? (it as Record<string, unknown>) : null;
    const cells = rec ? keys.map((k) => valueNode(shownValue(rec, k), k, depth)) : [valueNode(it, undefined, depth)];
    body.appendChild(el('tr', {}, ...cells.map((c) => el('td', {}, c))));
  }
  return el('table', { class: 'list', ...attrs }, head, body);
}
