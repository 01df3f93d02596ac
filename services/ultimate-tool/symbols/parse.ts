import { parseLd65Map } from './ld65-map.js';
import { parseTass64Map } from './tass64-map.js';
import { SYMBOL_FORMATS, SymbolFileError, type SymbolFormat, type SymbolTable } from './symbol-table.js';
import { parseViceLabels } from './vice-labels.js';

/** Parse one label or map file. Throws SymbolFileError on a line it does not understand. */
export function parseSymbolFile(format: SymbolFormat, text: string, file: string | null = null): SymbolTable {
  switch (format) {
    case 'acme-vicelabels':
    case '64tass-vice-labels':
    case 'ld65-labels':
      return parseViceLabels(format, text, file);
    case 'ld65-map':
      return parseLd65Map(text, file);
    case '64tass-map':
      return parseTass64Map(text, file);
    default:
      throw new SymbolFileError(format, 0, `unknown format; expected one of ${SYMBOL_FORMATS.join(', ')}`);
  }
}

export function isSymbolFormat(value: string): value is SymbolFormat {
  return (SYMBOL_FORMATS as readonly string[]).includes(value);
}
