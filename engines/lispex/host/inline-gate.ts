// Which jobs may be evaluated on the calling thread instead of a worker. A worker exists for the
// wall clock and cancellation: it can be terminated in the middle of anything. A job needs neither
// when its program provably ends within microseconds, and this gate admits only such programs,
// judged from the source text alone (before any engine work):
//
// - short (INLINE_SOURCE_LIMIT UTF-16 units), nested at most INLINE_DEPTH_LIMIT lists deep, and no
//   `input` datum;
// - every symbol, quoted or not, is one of INLINE_NAMES: a few special forms that neither bind
//   nor loop, and primitives that take no procedure, mutate nothing, and build a result at most
//   about as large as their arguments together (so not `square`: nested, it would double a
//   number's size per level without the number appearing twice in the source).
//
// Such a program has no variables, procedures, continuations or macros, so nothing can loop or be
// shared: every form is evaluated at most once (machine transitions are bounded by the source's
// size), and every value — strings, lists, bignum digits — is at most as large as the literals it
// was built from (a few hundred bytes). The engine still applies every limit of the profile
// exactly as in a worker; the gate only decides that the wall clock cannot be the one that ends
// the run. Anything the scan does not positively recognize (comments, `#` syntax other than
// booleans, `|symbols|`, quasiquote, non-ASCII outside strings, an unterminated string) sends the
// job to a worker: the gate may turn away a harmless program, never admit a long one.

import type { EvaluationJob } from './protocol.js';

/** Longest admitted source, in UTF-16 units (every value is then at most this order of size). */
export const INLINE_SOURCE_LIMIT = 1024;

/** Deepest admitted list nesting (far inside any JS stack, worker or main thread). */
export const INLINE_DEPTH_LIMIT = 32;

/**
 * Special forms that neither bind, define, loop nor capture, and primitives whose cost and result
 * are bounded by their arguments' size. Left out on purpose: everything that takes a procedure
 * (map, apply, call/cc, dynamic-wind, with-exception-handler, …: `((call/cc call/cc) (call/cc
 * call/cc))` loops without a lambda), builds a large value from a small number (expt, make-list,
 * make-string, make-vector, make-bytevector), uses one argument twice (square: `(square (square
 * …))` doubles the digits per level), mutates (vector-set!), or binds (define, let, lambda, set!,
 * define-syntax…).
 */
export const INLINE_NAMES: ReadonlySet<string> = new Set([
  // special forms
  'quote',
  'if',
  'and',
  'or',
  'when',
  'unless',
  'begin',
  // numbers
  '+',
  '-',
  '*',
  '/',
  '%',
  '=',
  '==',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  'abs',
  'min',
  'max',
  'quotient',
  'remainder',
  'modulo',
  'gcd',
  'lcm',
  'floor',
  'ceiling',
  'round',
  'truncate',
  'exact',
  'inexact',
  'exact->inexact',
  'inexact->exact',
  'number->string',
  'number?',
  'integer?',
  'rational?',
  'real?',
  'exact?',
  'inexact?',
  'exact-integer?',
  'zero?',
  'positive?',
  'negative?',
  'odd?',
  'even?',
  // pairs, lists and other values
  'cons',
  'car',
  'cdr',
  'caar',
  'cadr',
  'cdar',
  'cddr',
  'caddr',
  'list',
  'length',
  'reverse',
  'append',
  'list-ref',
  'null?',
  'pair?',
  'list?',
  'boolean?',
  'string?',
  'symbol?',
  'not',
  'eq?',
  'eqv?',
  'equal?',
  'values',
  // strings and output
  'string-length',
  'string-append',
  'substring',
  'string=?',
  'string<?',
  'string-upcase',
  'string-downcase',
  'display',
  'write',
  'newline',
  'error',
]);

/** An unsigned or signed decimal integer, decimal or exponent real, or ratio: never a symbol. */
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$|^[+-]?\d+\/\d+$/;
const BOOLEANS: ReadonlySet<string> = new Set(['#t', '#f', '#true', '#false']);

function isTokenChar(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) || // a-z
    (c >= 0x41 && c <= 0x5a) || // A-Z
    (c >= 0x30 && c <= 0x39) || // 0-9
    '!$%&*+-./:<=>?@^_~'.includes(String.fromCharCode(c))
  );
}

/** Whether `token` (a run of token characters) is admitted: a number, `.`, or an admitted name. */
function admittedToken(token: string): boolean {
  return token === '.' || NUMBER.test(token) || INLINE_NAMES.has(token);
}

/**
 * True when `job` may run on the calling thread: its program provably ends long before any wall
 * clock (see the header). False is always safe: the job then runs in a worker.
 */
export function isInlineBounded(job: EvaluationJob): boolean {
  const { source } = job;
  if (typeof source !== 'string' || job.input !== undefined) return false;
  if (source.length > INLINE_SOURCE_LIMIT) return false;
  let depth = 0;
  let i = 0;
  const n = source.length;
  while (i < n) {
    const c = source.charCodeAt(i);
    if (c === 0x28 /* ( */) {
      if (++depth > INLINE_DEPTH_LIMIT) return false;
      i++;
    } else if (c === 0x29 /* ) */) {
      depth--;
      i++;
    } else if (c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d || c === 0x27 /* ' */) {
      i++;
    } else if (c === 0x22 /* " */) {
      // A string: any text; a backslash takes the next character with it.
      i++;
      for (;;) {
        if (i >= n) return false;
        const s = source.charCodeAt(i);
        if (s === 0x5c /* \ */) i += 2;
        else if (s === 0x22) break;
        else i++;
      }
      i++;
    } else if (c === 0x23 /* # */ || isTokenChar(c)) {
      const start = i;
      i++;
      while (i < n && isTokenChar(source.charCodeAt(i))) i++;
      const token = source.slice(start, i);
      if (c === 0x23 ? !BOOLEANS.has(token) : !admittedToken(token)) return false;
    } else {
      // Comments, `|`, `#\`, quasiquote, brackets, non-ASCII outside strings, …
      return false;
    }
  }
  return true;
}
