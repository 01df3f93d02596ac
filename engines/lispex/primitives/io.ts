// The io family. Output goes through `rt.writeOut`, which charges the output-byte meter for the
// whole text before appending it (one candidate append per call, so a denied charge commits
// nothing). All four return zero values (registry cardinality `discard`).

import { displayValue, writeValue } from '../printer.js';
import { NO_VALUES, type PrimitiveFn } from '../values.js';

export const IO_PRIMITIVES: Readonly<Record<string, PrimitiveFn>> = {
  display: (args, rt) => {
    rt.writeOut(displayValue(args[0]!));
    return NO_VALUES;
  },
  write: (args, rt) => {
    rt.writeOut(writeValue(args[0]!));
    return NO_VALUES;
  },
  newline: (_args, rt) => {
    rt.writeOut('\n');
    return NO_VALUES;
  },
  /** `display` followed by a line feed, as one append. */
  println: (args, rt) => {
    rt.writeOut(`${displayValue(args[0]!)}\n`);
    return NO_VALUES;
  },
};
