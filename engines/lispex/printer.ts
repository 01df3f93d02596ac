// The one fixed printed form of every Lispex value: `write` (machine-readable, round-trips
// through the reader for every portable kind) and `display` (human-readable: strings and
// characters raw). The forms follow R7RS-small; the decisions are listed in docs/lispex/VALUES.md.
//
//   #t #f  ()  42  -7  1/3  1.5  1.0  -0.0  1e+21 -> 1.0e21  (shortest round-trip digits)
//   "a\nb"  #\a #\space #\x1  sym |odd sym|  (1 2 . 3)  #(1 2)  #u8(1 2)
//   (quote x) stays a list (no ' abbreviation)
//   #<procedure car>  #<procedure name>  #<procedure>  #<continuation>
//   #<error-object "message" irritant ...>  #<unspecified>
// Cycles (only possible through `vector-set!`) print with R7RS datum labels `#0=` / `#0#`, so
// printing always terminates. Printing is iterative: deep or long structures cannot overflow
// the JS stack.

import { isInvisible, isWhitespaceChar } from './chars.js';
import { formatNumber, parseNumber } from './numbers.js';
import {
  Bytevector,
  Char,
  Closure,
  Continuation,
  ErrorObject,
  Flonum,
  LString,
  LVector,
  MultipleValues,
  NIL,
  Pair,
  Primitive,
  Ratnum,
  Sym,
  Unspecified,
  type Value,
} from './values.js';

export type PrintMode = 'write' | 'display';

/** Named characters (R7RS), by code point. */
const CHAR_NAMES: ReadonlyMap<number, string> = new Map([
  [0, 'null'],
  [7, 'alarm'],
  [8, 'backspace'],
  [9, 'tab'],
  [10, 'newline'],
  [13, 'return'],
  [27, 'escape'],
  [32, 'space'],
  [127, 'delete'],
]);

const STRING_ESCAPES: ReadonlyMap<number, string> = new Map([
  [7, '\\a'],
  [8, '\\b'],
  [9, '\\t'],
  [10, '\\n'],
  [13, '\\r'],
  [34, '\\"'],
  [92, '\\\\'],
]);

function hex(cp: number): string {
  return cp.toString(16);
}

export function writeChar(cp: number): string {
  const name = CHAR_NAMES.get(cp);
  if (name !== undefined) return `#\\${name}`;
  // Non-ASCII characters whose glyph is blank or attaches to another (or that are unassigned in
  // the contract's Unicode version) are written as #\xHH: chars.ts's table, not the host's \p{…}.
  if (cp < 0x20 || (cp >= 0x80 && isInvisible(cp))) return `#\\x${hex(cp)}`;
  return `#\\${String.fromCodePoint(cp)}`;
}

/** `"…"` with R7RS escapes; other control characters as `\xHH;`. */
export function writeStringLiteral(s: string, quote = '"'): string {
  let out = quote;
  let plainFrom = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 34 && c !== 92 && c !== 0x7c && c !== 0x7f) continue;
    if (c === 0x7c && quote !== '|') continue;
    if (c === 34 && quote !== '"') continue;
    out += s.slice(plainFrom, i);
    out += c === 0x7c ? '\\|' : (STRING_ESCAPES.get(c) ?? `\\x${hex(c)};`);
    plainFrom = i + 1;
  }
  return out + s.slice(plainFrom) + quote;
}

const DELIMITER = /[()";'`,|[\]{}]/;

/**
 * True when `name` holds a White_Space scalar (the contract's table, not the host's \s) or U+FEFF,
 * the BOM: the reader takes it as an ordinary scalar, but nobody reading the output can see it.
 */
function hasSpaceOrBom(name: string): boolean {
  for (const ch of name) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0xfeff || isWhitespaceChar(cp)) return true;
  }
  return false;
}

/** True when the bare name would not read back as this symbol, so it needs `|…|`. */
export function symbolNeedsBars(name: string): boolean {
  if (name.length === 0 || name === '.') return true;
  if (name.startsWith('#')) return true;
  if (DELIMITER.test(name) || hasSpaceOrBom(name)) return true;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a symbol with a control character must be printed |escaped|.
  if (/[\x00-\x1f\x7f]/.test(name)) return true;
  // Anything the reader would take as a number or reject as a malformed number.
  if (parseNumber(name).kind !== 'invalid') return true;
  return /^[+-]?\.?[0-9]/.test(name);
}

export function writeSymbol(name: string): string {
  return symbolNeedsBars(name) ? writeStringLiteral(name, '|') : name;
}

function writeAtom(v: Value, mode: PrintMode): string {
  if (typeof v === 'number' || typeof v === 'bigint') return v.toString();
  if (typeof v === 'boolean') return v ? '#t' : '#f';
  if (v instanceof Flonum || v instanceof Ratnum) return formatNumber(v);
  if (v instanceof LString) return mode === 'write' ? writeStringLiteral(v.value) : v.value;
  if (v instanceof Sym) return mode === 'write' ? writeSymbol(v.name) : v.name;
  if (v instanceof Char) return mode === 'write' ? writeChar(v.codePoint) : String.fromCodePoint(v.codePoint);
  if (v === NIL) return '()';
  if (v instanceof Bytevector) return `#u8(${Array.from(v.bytes).join(' ')})`;
  if (v instanceof Primitive) return `#<procedure ${v.name}>`;
  if (v instanceof Closure) return v.name === null ? '#<procedure>' : `#<procedure ${v.name}>`;
  if (v instanceof Continuation) return '#<continuation>';
  if (v instanceof Unspecified) return '#<unspecified>';
  return '#<unknown>';
}

// ---------------------------------------------------------------------------------------------
// Cycle detection (only vectors can close a cycle: pairs are immutable, so without a vector the
// graph is a DAG and the detection pass is skipped).

function containsVector(root: Value): boolean {
  const stack: Value[] = [root];
  const seen = new Set<object>();
  while (stack.length > 0) {
    let v = stack.pop()!;
    while (v instanceof Pair) {
      if (seen.has(v)) break;
      seen.add(v);
      stack.push(v.car);
      v = v.cdr;
    }
    if (v instanceof LVector) return true;
    if (v instanceof ErrorObject) for (const x of v.irritants) stack.push(x);
  }
  return false;
}

function children(v: Value): Value[] {
  if (v instanceof Pair) return [v.car, v.cdr];
  if (v instanceof LVector) return v.items;
  if (v instanceof ErrorObject) return v.irritants;
  return [];
}

function isCompound(v: Value): v is Pair | LVector | ErrorObject {
  return v instanceof Pair || v instanceof LVector || v instanceof ErrorObject;
}

/** Objects reached again while still being visited: the targets that need datum labels. */
function cycleTargets(root: Value): Set<object> {
  const targets = new Set<object>();
  if (!isCompound(root) || !containsVector(root)) return targets;
  const state = new Map<object, 1 | 2>(); // 1 = on the path, 2 = finished
  const stack: { node: Pair | LVector | ErrorObject; kids: Value[]; next: number }[] = [];
  const enter = (node: Pair | LVector | ErrorObject) => {
    state.set(node, 1);
    stack.push({ node, kids: children(node), next: 0 });
  };
  enter(root);
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.next >= top.kids.length) {
      state.set(top.node, 2);
      stack.pop();
      continue;
    }
    const kid = top.kids[top.next++]!;
    if (!isCompound(kid)) continue;
    const s = state.get(kid);
    if (s === 1) targets.add(kid);
    else if (s === undefined) enter(kid);
  }
  return targets;
}

// ---------------------------------------------------------------------------------------------
// The printer proper: an explicit work stack of values and literal text.

class Text {
  constructor(readonly text: string) {}
}
const OPEN_PAREN = new Text('(');
const CLOSE_PAREN = new Text(')');
const SPACE = new Text(' ');
const DOT = new Text(' . ');
const OPEN_VECTOR = new Text('#(');

/** Appended to a printed form cut at `maxLength`. */
export const TRUNCATION_MARK = '...';

function bounded(text: string, maxLength: number): string {
  return text.length > maxLength ? text.slice(0, maxLength) + TRUNCATION_MARK : text;
}

/**
 * The printed form of `root`. With `maxLength`, printing stops once that many UTF-16 units are
 * produced and the text ends with `...` (for diagnostics, where an irritant may be huge).
 */
export function printValue(root: Value, mode: PrintMode, maxLength = Infinity): string {
  if (!isCompound(root) && !(root instanceof MultipleValues)) return bounded(writeAtom(root, mode), maxLength);
  const targets = cycleTargets(root);
  const labels = new Map<object, number>();
  let out = '';
  const work: (Value | Text)[] = [root];
  while (work.length > 0) {
    if (out.length > maxLength) return bounded(out, maxLength);
    const item = work.pop()!;
    if (item instanceof Text) {
      out += item.text;
      continue;
    }
    const v = item;
    if (targets.size > 0 && isCompound(v) && targets.has(v)) {
      const label = labels.get(v);
      if (label !== undefined) {
        out += `#${label}#`;
        continue;
      }
      const n = labels.size;
      labels.set(v, n);
      out += `#${n}=`;
    }
    if (v instanceof Pair) {
      // Walk the spine; stop early at a labelled pair so it prints as ` . #n#` / ` . #n=(…)`.
      const items: Value[] = [];
      let p: Value = v;
      do {
        items.push((p as Pair).car);
        p = (p as Pair).cdr;
      } while (p instanceof Pair && !(targets.size > 0 && targets.has(p)));
      work.push(CLOSE_PAREN);
      if (p !== NIL) work.push(p, DOT);
      for (let i = items.length - 1; i >= 0; i--) {
        work.push(items[i]!);
        if (i > 0) work.push(SPACE);
      }
      out += OPEN_PAREN.text;
    } else if (v instanceof LVector) {
      work.push(CLOSE_PAREN);
      for (let i = v.items.length - 1; i >= 0; i--) {
        work.push(v.items[i]!);
        if (i > 0) work.push(SPACE);
      }
      out += OPEN_VECTOR.text;
    } else if (v instanceof ErrorObject) {
      work.push(new Text('>'));
      for (let i = v.irritants.length - 1; i >= 0; i--) work.push(v.irritants[i]!, SPACE);
      out += `#<error-object ${writeStringLiteral(v.message.value)}`;
    } else if (v instanceof MultipleValues) {
      // Not a first-class value; printed (for diagnostics only) as its values separated by spaces.
      for (let i = v.values.length - 1; i >= 0; i--) {
        work.push(v.values[i]!);
        if (i > 0) work.push(SPACE);
      }
    } else {
      out += writeAtom(v, mode);
    }
  }
  return bounded(out, maxLength);
}

/** `write` form: the one fixed printed form used for values, irritants and the CLI. */
export function writeValue(v: Value, maxLength = Infinity): string {
  return printValue(v, 'write', maxLength);
}

/** `display` form: like `write` but strings and characters print raw. */
export function displayValue(v: Value, maxLength = Infinity): string {
  return printValue(v, 'display', maxLength);
}
