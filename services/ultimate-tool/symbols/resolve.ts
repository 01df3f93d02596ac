// resolveAddress: which symbol an address belongs to, from one run's own label and map files
// (resolver schema 2). Every answer is a result, never an exception: resolved (one symbol, at the
// address or the nearest before it), ambiguous (several equally good), unmapped (nothing close),
// unavailable (no symbol information, or no such context).
import { addressHex, parseAddress } from './address.js';
import type { SegmentEntry, SymbolFormat, SymbolTable } from './symbol-table.js';

export const RESOLVER_SCHEMA_VERSION = 2;

/**
 * Without a map file saying where segments end, a nearest-preceding label further than this is
 * not taken as the owner of the address (a page: beyond it, a label rarely still describes code).
 */
export const MAX_UNSEGMENTED_OFFSET = 0xff;

export interface ResolvedSymbol {
  readonly name: string;
  readonly address: number;
  readonly address_hex: string;
  /** address − symbol address: 0 for an exact match. */
  readonly offset: number;
  readonly scope: string | null;
  readonly segment: string | null;
  readonly format: SymbolFormat;
  readonly file: string | null;
}

export interface ResolverResult {
  readonly resolver_schema_version: 2;
  readonly result: 'resolved' | 'ambiguous' | 'unmapped' | 'unavailable';
  readonly address: number;
  readonly address_hex: string;
  readonly context: string | null;
  /** resolved: one; ambiguous: all candidates (sorted by name); otherwise empty. */
  readonly symbols: readonly ResolvedSymbol[];
  /** The ld65 segment holding the address, when a map file says so. */
  readonly segment: { readonly name: string; readonly start: number; readonly end: number; readonly offset: number } | null;
  /** Why the result is not `resolved` (null when it is). */
  readonly reason: string | null;
}

/** Thrown for an address the caller should have validated (the routes answer 400). */
export class AddressError extends Error {
  override readonly name = 'AddressError';
}

export function resolveAddress(tables: readonly SymbolTable[], address: number | string, context?: string | null): ResolverResult {
  const parsed = parseAddress(address);
  if (!parsed.ok) throw new AddressError(parsed.message);
  const value = parsed.address;
  const ctx = context ?? null;
  const base = { resolver_schema_version: RESOLVER_SCHEMA_VERSION, address: value, address_hex: addressHex(value), context: ctx } as const;

  const segments = tables.flatMap((t) => t.segments);
  const segmentAt = (a: number): SegmentEntry | undefined => segments.find((s) => s.size > 0 && a >= s.start && a <= s.end);
  const holding = segmentAt(value);
  const segment = holding ? { name: holding.name, start: holding.start, end: holding.end, offset: value - holding.start } : null;

  const all: ResolvedSymbol[] = [];
  for (const table of tables) {
    for (const s of table.symbols) {
      all.push({
        name: s.name,
        address: s.address,
        address_hex: addressHex(s.address),
        offset: value - s.address,
        scope: s.scope,
        segment: segmentAt(s.address)?.name ?? null,
        format: table.format,
        file: table.file,
      });
    }
  }
  if (all.length === 0) {
    return { ...base, result: 'unavailable', symbols: [], segment, reason: 'the run has no snapshotted label or map file with symbols' };
  }

  // A context is exact: a 64tass scope, an ld65 segment, or the symbol file's name.
  const inContext = ctx === null ? all : all.filter((s) => s.scope === ctx || s.segment === ctx || s.file === ctx);
  if (inContext.length === 0) {
    return { ...base, result: 'unavailable', symbols: [], segment, reason: `no symbol of this run is in context ${JSON.stringify(ctx)}` };
  }

  const candidates = inContext.filter((s) => s.offset >= 0 && (holding ? s.segment === holding.name : s.offset <= MAX_UNSEGMENTED_OFFSET));
  if (candidates.length === 0) {
    const reason = holding
      ? `no symbol${ctx === null ? '' : ` in context ${JSON.stringify(ctx)}`} at or before ${addressHex(value)} in segment ${holding.name}`
      : `no symbol${ctx === null ? '' : ` in context ${JSON.stringify(ctx)}`} within $${MAX_UNSEGMENTED_OFFSET.toString(16).toUpperCase()} bytes at or before ${addressHex(value)}`;
    return { ...base, result: 'unmapped', symbols: [], segment, reason };
  }
  const nearest = Math.min(...candidates.map((s) => s.offset));
  // The same name from two files (labels and map) is one symbol.
  const byName = new Map<string, ResolvedSymbol>();
  for (const s of candidates) if (s.offset === nearest && !byName.has(s.name)) byName.set(s.name, s);
  const best = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (best.length === 1) return { ...base, result: 'resolved', symbols: best, segment, reason: null };
  return {
    ...base,
    result: 'ambiguous',
    symbols: best,
    segment,
    reason: `${best.length} symbols name ${addressHex(value - nearest)}: ${best.map((s) => s.name).join(', ')}; a context can choose`,
  };
}
