// The reader: source scalars → tokens → syntax trees (data with spans). Token grammar follows
// R7RS-small (the contracts do not store one); every decision is listed in docs/lispex/PIPELINE.md.
// Each recognized token charges one token-meter unit just before it is appended; each decoded
// scalar charges one frontend transition (in SourceCursor). The parser keeps an explicit stack,
// so deeply nested input cannot overflow the JS stack.

import { asciiLowercase } from './chars.js';
import { LispexError, type SourcePosition, type Span } from './diagnostics.js';
import { MAX_DATUM_NESTING, ResourceExhausted, type Meter } from './meter.js';
import { EOF, SourceCursor } from './source.js';
import { parseNumber } from './numbers.js';
import { Bytevector, Char, LString, LVector, NIL, Pair, Sym, type Value } from './values.js';

// ---------------------------------------------------------------------------------------------
// Syntax trees

export type Syntax = SAtom | SSym | SList | SVector;
/** A self-evaluating datum: number, boolean, string, character or bytevector. */
export interface SAtom {
  readonly t: 'atom';
  readonly value: Value;
  readonly span: Span;
}
export interface SSym {
  readonly t: 'sym';
  readonly sym: Sym;
  readonly span: Span;
}
/** A proper list (tail null) or a dotted list (tail non-null). */
export interface SList {
  readonly t: 'list';
  readonly items: Syntax[];
  readonly tail: Syntax | null;
  readonly span: Span;
}
export interface SVector {
  readonly t: 'vector';
  readonly items: Syntax[];
  readonly span: Span;
}

/** The runtime datum a syntax tree denotes (for `quote`). Iterative over list spines. */
export function syntaxToValue(s: Syntax): Value {
  switch (s.t) {
    case 'atom':
      return s.value;
    case 'sym':
      return s.sym;
    case 'vector':
      return new LVector(s.items.map(syntaxToValue));
    case 'list': {
      let out: Value = s.tail === null ? NIL : syntaxToValue(s.tail);
      for (let i = s.items.length - 1; i >= 0; i--) out = new Pair(syntaxToValue(s.items[i]!), out);
      return out;
    }
  }
}

// Number syntax is L2's `parseNumber` (numbers.ts), the same parser `string->number` uses, so
// the reader and the primitive agree on every spelling.

/** Reader view of number syntax: the value, null (not a number), or 'nonfinite' (E314). */
export function readNumber(text: string): Value | null | 'nonfinite' {
  const r = parseNumber(text);
  return r.kind === 'number' ? r.value : r.kind === 'nonfinite' ? 'nonfinite' : null;
}

export { readNumber as parseNumber };

// ---------------------------------------------------------------------------------------------
// Characters and delimiters

const CHAR_NAMES: ReadonlyMap<string, number> = new Map([
  ['alarm', 7],
  ['backspace', 8],
  ['delete', 0x7f],
  ['escape', 0x1b],
  ['newline', 10],
  ['null', 0],
  ['nul', 0],
  ['return', 13],
  ['space', 32],
  ['tab', 9],
]);

function isWhitespace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11;
}
/** Characters that end an atom. */
function isDelimiter(c: number): boolean {
  return (
    c === EOF ||
    isWhitespace(c) ||
    c === 0x28 ||
    c === 0x29 ||
    c === 0x22 ||
    c === 0x3b ||
    c === 0x7c ||
    c === 0x27 ||
    c === 0x60 ||
    c === 0x2c
  );
}
function isForbiddenBracket(c: number): boolean {
  return c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d; // [ ] { }
}
function isScalar(cp: number): boolean {
  return cp >= 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
}

// ---------------------------------------------------------------------------------------------
// The reader

type Frame =
  | { kind: 'list'; items: Syntax[]; tail: Syntax | null; dot: 'none' | 'pending' | 'done'; start: SourcePosition; startByte: number }
  | { kind: 'vector'; items: Syntax[]; start: SourcePosition; startByte: number }
  | { kind: 'bytevector'; items: Syntax[]; start: SourcePosition; startByte: number }
  | { kind: 'abbrev'; sym: Sym; start: SourcePosition; startByte: number };

/** Read every top-level datum of a source. Throws LispexError (reader phase) or ResourceExhausted. */
export function readAll(bytes: Uint8Array, meter: Meter): Syntax[] {
  const cursor = new SourceCursor(bytes, meter);
  try {
    return new Reader(cursor, meter).readAll();
  } catch (e) {
    if (e instanceof ResourceExhausted) e.at ??= cursor.position();
    throw e;
  }
}

class Reader {
  private readonly roots: Syntax[] = [];
  private readonly stack: Frame[] = [];

  constructor(
    private readonly src: SourceCursor,
    private readonly meter: Meter,
  ) {}

  private error(code: 'E100' | 'E120' | 'E140' | 'E150', message: string, at: SourcePosition): LispexError {
    return new LispexError(code, message, [], at);
  }

  /** Complete the token as a number if `text` reads as one (E314 if it is non-finite). */
  private tryNumber(text: string, start: SourcePosition, startByte: number): boolean {
    const num = readNumber(text);
    if (num === 'nonfinite') throw new LispexError('E314', 'non-finite inexact number', [], start);
    if (num === null) return false;
    this.meter.chargeToken();
    this.complete({ t: 'atom', value: num, span: this.span(start, startByte) });
    return true;
  }

  private span(start: SourcePosition, startByte: number): Span {
    return { line: start.line, column: start.column, startByte, endByte: this.src.pos };
  }

  readAll(): Syntax[] {
    for (;;) {
      this.skipAtmosphere();
      const c = this.src.peek();
      if (c === EOF) {
        if (this.stack.length > 0) {
          const f = this.stack[this.stack.length - 1]!;
          throw this.error('E100', 'unexpected end of input inside a datum', f.start);
        }
        return this.roots;
      }
      this.readToken();
    }
  }

  /** Whitespace and comments (`;`, nestable `#| |#`); `#;` is E120. */
  private skipAtmosphere(): void {
    const src = this.src;
    for (;;) {
      const c = src.peek();
      if (c === EOF) return;
      if (isWhitespace(c)) {
        src.next();
      } else if (c === 0x3b) {
        while (src.peek() !== EOF && src.peek() !== 0x0a) src.next();
      } else if (c === 0x23) {
        // Only consume `#` when it starts a comment; otherwise the token reader handles it.
        // `|` and `;` are ASCII, so one raw byte look-ahead decides without decoding twice.
        const after = src.bytes[src.pos + 1];
        if (after !== 0x7c && after !== 0x3b) return;
        const start = src.position();
        src.next();
        if (after === 0x3b) throw this.error('E120', 'datum comment #; is a forbidden extension', start);
        src.next();
        this.skipBlockComment(start);
      } else return;
    }
  }

  private skipBlockComment(start: SourcePosition): void {
    let depth = 1;
    const src = this.src;
    while (depth > 0) {
      const c = src.next();
      if (c === EOF) throw this.error('E100', 'unterminated block comment', start);
      if (c === 0x7c && src.peek() === 0x23) {
        src.next();
        depth--;
      } else if (c === 0x23 && src.peek() === 0x7c) {
        src.next();
        depth++;
      }
    }
  }

  private readToken(): void {
    if (this.stack.length > MAX_DATUM_NESTING) {
      const f = this.stack[this.stack.length - 1]!;
      throw new LispexError('recursion-limit', `datum nesting deeper than ${MAX_DATUM_NESTING}`, [], f.start);
    }
    const src = this.src;
    const start = src.position();
    const startByte = src.pos;
    const c = src.peek();
    if (c === 0x28) {
      src.next();
      this.meter.chargeToken();
      this.stack.push({ kind: 'list', items: [], tail: null, dot: 'none', start, startByte });
      return;
    }
    if (c === 0x29) {
      src.next();
      this.closeParen(start);
      return;
    }
    if (c === 0x27 || c === 0x60 || c === 0x2c) {
      src.next();
      let name = c === 0x27 ? 'quote' : c === 0x60 ? 'quasiquote' : 'unquote';
      if (c === 0x2c && src.peek() === 0x40) {
        src.next();
        name = 'unquote-splicing';
      }
      this.meter.chargeToken();
      this.stack.push({ kind: 'abbrev', sym: Sym.of(name), start, startByte });
      return;
    }
    if (c === 0x22) {
      src.next();
      const text = this.readStringBody(0x22, start, 'string');
      this.meter.chargeToken();
      this.complete({ t: 'atom', value: new LString(text), span: this.span(start, startByte) });
      return;
    }
    if (c === 0x7c) {
      src.next();
      const text = this.readStringBody(0x7c, start, 'symbol');
      this.meter.chargeToken();
      this.complete({ t: 'sym', sym: Sym.of(text), span: this.span(start, startByte) });
      return;
    }
    if (c === 0x23) {
      this.readHash(start, startByte);
      return;
    }
    if (isForbiddenBracket(c)) throw this.error('E100', `illegal character ${String.fromCodePoint(c)}`, start);
    // An atom: number, symbol, or the dot.
    const text = this.readAtomText();
    if (text === '.') {
      this.meter.chargeToken();
      this.dot(start);
      return;
    }
    if (this.tryNumber(text, start, startByte)) return;
    if (looksNumeric(text)) throw this.error('E100', `illegal number syntax ${text}`, start);
    this.meter.chargeToken();
    this.complete({ t: 'sym', sym: Sym.of(text), span: this.span(start, startByte) });
  }

  /** The scalars up to the next delimiter; `[]{}` inside an atom are illegal. */
  private readAtomText(): string {
    const src = this.src;
    let text = '';
    for (;;) {
      const c = src.peek();
      if (isDelimiter(c)) break;
      if (isForbiddenBracket(c)) throw this.error('E100', `illegal character ${String.fromCodePoint(c)}`, src.position());
      text += String.fromCodePoint(src.next());
    }
    return text;
  }

  private readHash(start: SourcePosition, startByte: number): void {
    const src = this.src;
    src.next(); // '#'
    const d = src.peek();
    if (d === 0x28) {
      src.next();
      this.meter.chargeToken();
      this.stack.push({ kind: 'vector', items: [], start, startByte });
      return;
    }
    if (d === 0x5c) {
      src.next();
      const ch = this.readCharacter(start);
      this.meter.chargeToken();
      this.complete({ t: 'atom', value: Char.of(ch), span: this.span(start, startByte) });
      return;
    }
    if (d === 0x21) throw this.error('E120', 'reader directives (#!) are a forbidden extension', start);
    if (d >= 0x30 && d <= 0x39) {
      // #0= / #0# datum labels
      throw this.error('E120', 'datum labels are a forbidden extension', start);
    }
    if (d === EOF || isDelimiter(d)) throw this.error('E100', 'illegal token #', start);
    const text = `#${this.readAtomText()}`;
    if (text === '#u8' || text === '#U8') {
      if (src.peek() !== 0x28) throw this.error('E100', 'expected ( after #u8', start);
      src.next();
      this.meter.chargeToken();
      this.stack.push({ kind: 'bytevector', items: [], start, startByte });
      return;
    }
    const lower = asciiLowercase(text);
    if (lower === '#t' || lower === '#true' || lower === '#f' || lower === '#false') {
      this.meter.chargeToken();
      this.complete({ t: 'atom', value: lower === '#t' || lower === '#true', span: this.span(start, startByte) });
      return;
    }
    if (this.tryNumber(text, start, startByte)) return;
    throw this.error('E100', `illegal token ${text}`, start);
  }

  /** After `#\`: a single scalar, a named character, or `x` + hex scalar value. */
  private readCharacter(start: SourcePosition): number {
    const src = this.src;
    const first = src.next();
    if (first === EOF) throw this.error('E150', 'end of input in character literal', start);
    if (isDelimiter(src.peek())) return first;
    let name = String.fromCodePoint(first);
    while (!isDelimiter(src.peek())) name += String.fromCodePoint(src.next());
    const named = CHAR_NAMES.get(name);
    if (named !== undefined) return named;
    if ((name[0] === 'x' || name[0] === 'X') && /^[xX][0-9a-fA-F]+$/.test(name)) {
      const cp = parseInt(name.slice(1), 16);
      if (!isScalar(cp)) throw this.error('E150', `#\\${name} is not a Unicode scalar value`, start);
      return cp;
    }
    throw this.error('E150', `unknown character name #\\${name}`, start);
  }

  /** String or |symbol| body after the opening delimiter, with R7RS escapes. */
  private readStringBody(close: number, start: SourcePosition, what: string): string {
    const src = this.src;
    let out = '';
    for (;;) {
      const c = src.next();
      if (c === EOF) throw this.error('E150', `unterminated ${what}`, start);
      if (c === close) return out;
      if (c !== 0x5c) {
        out += String.fromCodePoint(c);
        continue;
      }
      const escAt = src.position();
      const e = src.next();
      switch (e) {
        case 0x61:
          out += '\x07';
          break; // \a
        case 0x62:
          out += '\b';
          break;
        case 0x74:
          out += '\t';
          break;
        case 0x6e:
          out += '\n';
          break;
        case 0x72:
          out += '\r';
          break;
        case 0x22:
          out += '"';
          break;
        case 0x5c:
          out += '\\';
          break;
        case 0x7c:
          out += '|';
          break;
        case 0x78:
        case 0x58: {
          let hex = '';
          while (src.peek() !== 0x3b) {
            const h = src.next();
            if (h === EOF || !/[0-9a-fA-F]/.test(String.fromCodePoint(h))) {
              throw this.error('E150', `bad \\x escape in ${what}`, escAt);
            }
            hex += String.fromCodePoint(h);
          }
          src.next(); // ';'
          const cp = hex.length === 0 ? -1 : parseInt(hex, 16);
          if (!isScalar(cp)) throw this.error('E150', `\\x${hex}; is not a Unicode scalar value`, escAt);
          out += String.fromCodePoint(cp);
          break;
        }
        default: {
          // Line continuation: \ <intraline whitespace>* <newline> <intraline whitespace>*
          let k = e;
          while (k === 0x20 || k === 0x09) k = src.next();
          if (k === 0x0d && src.peek() === 0x0a) k = src.next();
          if (k !== 0x0a) throw this.error('E150', `unknown escape in ${what}`, escAt);
          while (src.peek() === 0x20 || src.peek() === 0x09) src.next();
        }
      }
    }
  }

  private dot(at: SourcePosition): void {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined || top.kind !== 'list' || top.dot !== 'none' || top.items.length === 0) {
      throw this.error('E140', 'misplaced dot', at);
    }
    top.dot = 'pending';
  }

  private closeParen(at: SourcePosition): void {
    const top = this.stack.pop();
    if (top === undefined) throw this.error('E100', 'unbalanced )', at);
    if (top.kind === 'abbrev') throw this.error('E100', `) after ${top.sym.name} shorthand`, at);
    this.meter.chargeToken();
    const span = this.span(top.start, top.startByte);
    if (top.kind === 'list') {
      if (top.dot === 'pending') throw this.error('E140', 'dot without a following datum', at);
      this.complete({ t: 'list', items: top.items, tail: top.tail, span });
    } else if (top.kind === 'vector') {
      this.complete({ t: 'vector', items: top.items, span });
    } else {
      const bytes = new Uint8Array(top.items.length);
      top.items.forEach((it, i) => {
        const v = it.t === 'atom' ? it.value : null;
        if (typeof v !== 'number' || v < 0 || v > 255) {
          throw this.error('E100', 'bytevector elements must be exact integers 0..255', it.span);
        }
        bytes[i] = v;
      });
      this.complete({ t: 'atom', value: new Bytevector(bytes), span });
    }
  }

  /** A datum is finished: hand it to the enclosing frame (closing shorthands on the way). */
  private complete(datum: Syntax): void {
    for (;;) {
      const top = this.stack[this.stack.length - 1];
      if (top === undefined) {
        this.roots.push(datum);
        return;
      }
      if (top.kind === 'abbrev') {
        this.stack.pop();
        const symSpan = { line: top.start.line, column: top.start.column, startByte: top.startByte, endByte: top.startByte + 1 };
        datum = {
          t: 'list',
          items: [{ t: 'sym', sym: top.sym, span: symSpan }, datum],
          tail: null,
          span: { line: top.start.line, column: top.start.column, startByte: top.startByte, endByte: this.src.pos },
        };
        continue;
      }
      if (top.kind === 'list') {
        if (top.dot === 'pending') {
          top.tail = datum;
          top.dot = 'done';
        } else if (top.dot === 'done') {
          throw this.error('E140', 'more than one datum after dot', datum.span);
        } else top.items.push(datum);
        return;
      }
      top.items.push(datum);
      return;
    }
  }
}

/** Text that starts like a number but did not parse as one is an illegal token, not a symbol. */
function looksNumeric(text: string): boolean {
  return /^[+-]?\.?[0-9]/.test(text) || /^#[eEiIxXbBoOdD]/.test(text);
}
