// How the dashboard writes numbers a C64 developer reads: addresses as $D7FF, bytes as $AD,
// durations rounded (ms with one decimal below 10 ms, whole ms below 10 s, seconds above), cycles
// as plain integers. Which field is which is decided by its name, once, here — the API's records
// use the same names everywhere (address, pc, value, data, debug_register, a/x/y/sp/p …).

import { addressHex } from '../../api/address-syntax.js';

export function hex8(n: number): string {
  return `$${(n & 0xff).toString(16).toUpperCase().padStart(2, '0')}`;
}

export function hex16(n: number): string {
  return addressHex(n & 0xffff);
}

export function duration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (Math.abs(ms) < 10) return `${ms.toFixed(1)} ms`;
  if (Math.abs(ms) < 10_000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** Fields holding a 16-bit address. */
const ADDRESS_FIELDS = new Set([
  'address',
  'pc',
  'site',
  'load',
  'entry',
  'jam_pc',
  'address_from',
  'address_to',
  'start',
  'end',
  'symbol_address',
]);
/** Fields holding a byte (or a list of bytes). */
const BYTE_FIELDS = new Set([
  'value',
  'data',
  'byte',
  'debug_register',
  'a',
  'x',
  'y',
  'sp',
  'p',
  'opcode',
  'progress_markers',
  'pass',
  'fail',
  'acknowledgement_writes',
]);

/** Fields of a memory record holding bytes as a string of hex pairs ("a900ff"). */
export const HEX_BYTE_STRING_FIELDS = new Set(['expected', 'actual', 'mask', 'bytes_hex', 'baseline_hex', 'candidate_hex']);

/** "a900ff" → "$A9 $00 $FF"; anything that is not hex pairs is left as it is. */
export function hexByteString(s: string): string {
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(s)) return s;
  return (s.match(/../g) ?? []).map((b) => `$${b.toUpperCase()}`).join(' ');
}

export type NumberKind = 'address' | 'byte' | 'duration' | 'plain';

export function numberKind(field: string | undefined): NumberKind {
  if (field === undefined) return 'plain';
  if (ADDRESS_FIELDS.has(field)) return 'address';
  if (BYTE_FIELDS.has(field)) return 'byte';
  if (field.endsWith('_ms')) return 'duration';
  return 'plain';
}

/** A number as the field it belongs to is read: hex for addresses and bytes, rounded for durations. */
export function formatNumber(n: number, field: string | undefined): string {
  const kind = numberKind(field);
  if (!Number.isInteger(n) && kind !== 'duration') return kind === 'plain' ? String(Math.round(n * 1000) / 1000) : String(n);
  if (kind === 'address' && n >= 0 && n <= 0xffff) return hex16(n);
  if (kind === 'byte' && n >= 0 && n <= 0xff) return hex8(n);
  if (kind === 'duration') return duration(n);
  return String(n);
}
