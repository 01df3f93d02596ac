// lispex_diagnostic: the exact catalog row of a code plus the condition that raises it. The row
// comes from diagnostic-catalog.v1.json unchanged; the raising conditions are this product's
// wording of the catalog families (README §6), since the catalog stores no prose.

import { DIAGNOSTIC_CATALOG, rowsAsObjects } from './contracts.js';

export const DIAGNOSTIC_CODE_PATTERN = /^[EW][0-9]{3}$/;

/** Where and when each catalog code is raised in this implementation. */
const RAISING_CONDITIONS: Readonly<Record<string, string>> = {
  E100: 'The reader meets an illegal token or structure, including an invalid UTF-8 sequence in the source bytes, an unbalanced parenthesis or an unterminated block comment.',
  E110: 'The normalizer meets a binding (define, set!, lambda or let parameter) of a reserved name, such as a core or derived form keyword.',
  E120: 'A forbidden extension: the datum comment #; (reader), reader directives or datum labels (reader), or a form outside the 13 core and 12 derived forms that the profile rejects (normalizer).',
  E130: 'The normalizer meets a malformed form: a core or derived form with the wrong shape or number of parts.',
  E140: 'The reader meets a malformed dotted list: a misplaced dot, a dot with no datum after it, or more than one datum after it.',
  E150: 'The reader meets a bad string or character literal: unknown escape, bad \\x escape, a code point that is not a Unicode scalar, an unknown character name or end of input inside the literal.',
  E300: 'A variable is read that has no binding. The span is the original-source occurrence whose lookup first fails (UNBOUND-LOOKUP-1).',
  E301: 'An application whose operator evaluates to something that is not a procedure.',
  E302: 'A procedure (primitive or closure) is called with a number of arguments outside its arity.',
  E303: 'set! of a name that has no binding.',
  E310: 'A primitive that needs a pair (car, cdr, the cxr family, …) receives something else.',
  E311: 'An index argument is outside the valid range of the string, vector, bytevector or list.',
  E312: 'A primitive receives an argument of the wrong type (including a failed proper-list requirement).',
  E313: 'Exact division by zero (/, quotient, remainder, modulo, floor/ and truncate/ families).',
  E314: 'A non-finite inexact number (infinity or NaN) would be read by the reader or produced by the runtime.',
  E320: 'Multiple values are used where exactly one value is required, or a continuation receives the wrong number of values.',
  E321: 'A letrec (or internal define) variable is read before its initialization has completed.',
  E330: 'The program calls error and no handler catches the resulting error object.',
  E331: 'The program raises a non-error object with raise or raise-continuable and no handler catches it.',
  E332: 'A handler installed with with-exception-handler returns from a non-continuable raise.',
  E340: 'An escape continuation captured by call/cc is invoked after its extent has ended.',
  W330: 'The deprecated procedure % is called; the call still returns its result.',
  W331: 'A deprecated list alias (list-first or list-rest) is called; the call still returns its result.',
};

export interface DiagnosticAnswer {
  readonly code: string;
  readonly known: boolean;
  readonly catalog: string;
  readonly row: Record<string, unknown> | null;
  readonly raising_condition: string | null;
}

const ROWS = new Map(rowsAsObjects(DIAGNOSTIC_CATALOG).map((row) => [row.code as string, row]));

export function diagnosticAnswer(code: string): DiagnosticAnswer {
  const row = ROWS.get(code);
  return {
    code,
    known: row !== undefined,
    catalog: DIAGNOSTIC_CATALOG.schema,
    row: row ?? null,
    raising_condition: row ? (RAISING_CONDITIONS[code] ?? null) : null,
  };
}

/** Every catalog code with a raising condition (checked by a test: the table covers the catalog). */
export function catalogCodes(): string[] {
  return [...ROWS.keys()];
}

export function hasRaisingCondition(code: string): boolean {
  return code in RAISING_CONDITIONS;
}
