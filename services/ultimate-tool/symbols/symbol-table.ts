// What a label or map file says, whatever assembler wrote it: symbols with addresses, and (from
// an ld65 map) segments with their placement and the object files that contributed to them.

export const SYMBOL_FORMATS = ['acme-vicelabels', '64tass-vice-labels', '64tass-map', 'ld65-labels', 'ld65-map'] as const;
export type SymbolFormat = (typeof SYMBOL_FORMATS)[number];

export interface SymbolEntry {
  /** The name as the assembler wrote it, without VICE's leading dot; 64tass scopes joined by ':'. */
  readonly name: string;
  readonly address: number;
  /** The enclosing scope path (64tass `.block`/`.proc`: "scope" for "scope:deep"), or null. */
  readonly scope: string | null;
}

export interface SegmentEntry {
  readonly name: string;
  readonly start: number;
  /** Inclusive, as ld65 prints it. */
  readonly end: number;
  readonly size: number;
}

/** One object file (module) and what it put into each segment. */
export interface ModuleEntry {
  /** As ld65 names it: `c.o`, or `lib.lib(obj.o)` for a library member. */
  readonly name: string;
  readonly segments: readonly { readonly segment: string; readonly offset: number; readonly size: number }[];
}

export interface SymbolTable {
  readonly format: SymbolFormat;
  /** The file it came from (the run's artifact name), when known; usable as a context. */
  readonly file: string | null;
  readonly symbols: readonly SymbolEntry[];
  readonly segments: readonly SegmentEntry[];
  readonly modules: readonly ModuleEntry[];
}

/** A line the parser does not understand: names the format, the line and what was expected. */
export class SymbolFileError extends Error {
  override readonly name = 'SymbolFileError';
  constructor(
    readonly format: SymbolFormat,
    readonly line: number,
    message: string,
  ) {
    super(`${format} line ${line}: ${message}`);
  }
}
