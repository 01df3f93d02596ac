// Source-line information from an ld65 `--dbgfile` (the cc65 debug info format, version 2.x):
// which source file and line produced the byte at a C64 address, and which symbol it belongs to.
// Only what the timeline needs is kept: files, segments (for their start address), spans
// (segment-relative byte ranges), lines (file + line + the spans they produced) and label symbols.
// The format is line-oriented: `kind<TAB>key=value,key=value,...`; values may be "quoted".

export interface SourceLocation {
  file: string;
  line: number;
}

export interface DebugSymbol {
  name: string;
  address: number;
}

export interface AddressSource {
  /** The most specific source line whose bytes cover the address (smallest span wins). */
  location: SourceLocation | null;
  /** The nearest label at or below the address within the same segment. */
  symbol: DebugSymbol | null;
}

export class DebugInfoError extends Error {
  override readonly name = 'DebugInfoError';
}

interface Range {
  start: number;
  end: number; // exclusive
  location: SourceLocation;
}

function parseFields(rest: string): Map<string, string> {
  const fields = new Map<string, string>();
  let i = 0;
  while (i < rest.length) {
    const eq = rest.indexOf('=', i);
    if (eq < 0) break;
    const key = rest.slice(i, eq);
    let value: string;
    let next: number;
    if (rest[eq + 1] === '"') {
      const close = rest.indexOf('"', eq + 2);
      if (close < 0) throw new DebugInfoError(`unterminated string for ${key}`);
      value = rest.slice(eq + 2, close);
      next = rest.indexOf(',', close);
    } else {
      next = rest.indexOf(',', eq);
      value = rest.slice(eq + 1, next < 0 ? rest.length : next);
    }
    fields.set(key, value);
    if (next < 0) break;
    i = next + 1;
  }
  return fields;
}

function num(fields: Map<string, string>, key: string, where: string): number {
  const raw = fields.get(key);
  if (raw === undefined) throw new DebugInfoError(`${where}: missing ${key}`);
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new DebugInfoError(`${where}: ${key}=${raw} is not a non-negative integer`);
  return n;
}

/** An address → source index built from one debug info file; lookups are binary searches. */
export class Ca65DebugInfo {
  readonly #ranges: Range[];
  readonly #symbols: DebugSymbol[];

  private constructor(ranges: Range[], symbols: DebugSymbol[]) {
    this.#ranges = ranges;
    this.#symbols = symbols;
  }

  get lineCount(): number {
    return this.#ranges.length;
  }

  get symbolCount(): number {
    return this.#symbols.length;
  }

  static parse(text: string): Ca65DebugInfo {
    const lines = text.split(/\r?\n/);
    if (!lines[0]?.startsWith('version\tmajor=2'))
      throw new DebugInfoError('not a cc65 debug info file of version 2 (first line must be "version<TAB>major=2,…")');
    const files = new Map<number, string>();
    const segStart = new Map<number, number>();
    const spans = new Map<number, { seg: number; start: number; size: number }>();
    const lineRecords: Array<{ file: number; line: number; spans: number[] }> = [];
    const symbols: DebugSymbol[] = [];
    lines.forEach((raw, index) => {
      if (!raw) return;
      const tab = raw.indexOf('\t');
      if (tab < 0) throw new DebugInfoError(`line ${index + 1}: expected "kind<TAB>fields"`);
      const kind = raw.slice(0, tab);
      const where = `line ${index + 1} (${kind})`;
      const f = parseFields(raw.slice(tab + 1));
      switch (kind) {
        case 'file':
          files.set(num(f, 'id', where), f.get('name') ?? '?');
          break;
        case 'seg':
          segStart.set(num(f, 'id', where), num(f, 'start', where));
          break;
        case 'span':
          spans.set(num(f, 'id', where), { seg: num(f, 'seg', where), start: num(f, 'start', where), size: num(f, 'size', where) });
          break;
        case 'line': {
          const spanList = f.get('span');
          // Lines from macro expansions carry type=1/2; the source line of the invocation is what a reader wants.
          if (spanList && (f.get('type') ?? '0') === '0')
            lineRecords.push({ file: num(f, 'file', where), line: num(f, 'line', where), spans: spanList.split('+').map(Number) });
          break;
        }
        case 'sym':
          if (f.get('type') === 'lab' && f.has('val')) symbols.push({ name: f.get('name') ?? '?', address: num(f, 'val', where) });
          break;
        default:
          break;
      }
    });
    const ranges: Range[] = [];
    for (const l of lineRecords) {
      const file = files.get(l.file);
      if (file === undefined) throw new DebugInfoError(`a line record names file id ${l.file}, which is not defined`);
      for (const id of l.spans) {
        const span = spans.get(id);
        if (!span) throw new DebugInfoError(`a line record names span id ${id}, which is not defined`);
        const base = segStart.get(span.seg);
        if (base === undefined) throw new DebugInfoError(`span ${id} names segment ${span.seg}, which is not defined`);
        if (span.size > 0) ranges.push({ start: base + span.start, end: base + span.start + span.size, location: { file, line: l.line } });
      }
    }
    // Narrowest first among equal starts, so the lookup prefers the most specific line.
    ranges.sort((a, b) => a.start - b.start || a.end - a.start - (b.end - b.start));
    symbols.sort((a, b) => a.address - b.address || a.name.localeCompare(b.name));
    return new Ca65DebugInfo(ranges, symbols);
  }

  /** Where the byte at `address` came from. */
  resolve(address: number): AddressSource {
    return { location: this.#location(address), symbol: this.#symbol(address) };
  }

  #location(address: number): SourceLocation | null {
    // The last range starting at or before the address; scan back over the few overlapping ones
    // (a line's span nested in a scope's span) for the narrowest that covers it.
    let lo = 0;
    let hi = this.#ranges.length - 1;
    let at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((this.#ranges[mid]?.start ?? 0) <= address) {
        at = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    let best: Range | undefined;
    for (let i = at; i >= 0 && i > at - 16; i--) {
      const r = this.#ranges[i];
      if (r && r.start <= address && address < r.end && (!best || r.end - r.start < best.end - best.start)) best = r;
    }
    return best ? best.location : null;
  }

  #symbol(address: number): DebugSymbol | null {
    let lo = 0;
    let hi = this.#symbols.length - 1;
    let found: DebugSymbol | null = null;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const s = this.#symbols[mid];
      if (s && s.address <= address) {
        found = s;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }
}
