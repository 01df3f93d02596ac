// Small families: error-object accessors, symbol conversions, and the deprecated compat
// aliases (which warn at the call site through `rt.warn` and then behave as their target).

import { LString, Sym, listFromArray, type PrimitiveFn } from '../values.js';
import { checkErrorObject, checkString, checkSymbol, pairError } from './args.js';
import { modulo } from './numeric.js';
import { Pair } from '../values.js';

export const ERROR_OBJECT_PRIMITIVES: Readonly<Record<string, PrimitiveFn>> = {
  'error-object-message': (args) => checkErrorObject('error-object-message', args[0]!).message,
  'error-object-irritants': (args) => listFromArray(checkErrorObject('error-object-irritants', args[0]!).irritants),
};

export const SYMBOL_PRIMITIVES: Readonly<Record<string, PrimitiveFn>> = {
  'string->symbol': (args) => Sym.of(checkString('string->symbol', args[0]!).value),
  'symbol->string': (args) => new LString(checkSymbol('symbol->string', args[0]!).name),
};

export const COMPAT_PRIMITIVES: Readonly<Record<string, PrimitiveFn>> = {
  /** Deprecated `%`: modulo, with W330. */
  '%': (args, rt) => {
    rt.warn('W330');
    return modulo(args, rt);
  },
  /** Deprecated `list-first`: car, with W331. */
  'list-first': (args, rt) => {
    rt.warn('W331');
    const p = args[0]!;
    if (p instanceof Pair) return p.car;
    throw pairError('list-first', p);
  },
  /** Deprecated `list-rest`: cdr, with W331. */
  'list-rest': (args, rt) => {
    rt.warn('W331');
    const p = args[0]!;
    if (p instanceof Pair) return p.cdr;
    throw pairError('list-rest', p);
  },
};
