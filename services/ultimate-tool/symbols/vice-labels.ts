// VICE label files ("al <address> .<name>") as the three assemblers really write them:
//   acme --vicelabels      al C:080d .start          (C: = the computer's memory space)
//   64tass --vice-labels   al 80d .start, al 819 .scope:deep   (no leading zeros; ':' joins scopes)
//   ld65 -Ln               al 000801 .start, al 000811 .@inner (six digits; may repeat a line)
import { type SymbolEntry, SymbolFileError, type SymbolFormat, type SymbolTable } from './symbol-table.js';

const LINE = /^al\s+(?:C:)?([0-9A-Fa-f]{1,6})\s+\.(\S+)$/;

export function parseViceLabels(format: Exclude<SymbolFormat, 'ld65-map'>, text: string, file: string | null = null): SymbolTable {
  const symbols: SymbolEntry[] = [];
  const seen = new Set<string>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    const match = LINE.exec(line);
    if (!match) throw new SymbolFileError(format, i + 1, `expected "al <hex address> .<name>", got ${JSON.stringify(line.slice(0, 80))}`);
    const address = Number.parseInt(match[1]!, 16);
    if (address > 0xffff) throw new SymbolFileError(format, i + 1, `address $${match[1]} is beyond the C64's 64 KiB`);
    const name = match[2]!;
    const key = `${name}@${address}`;
    if (seen.has(key)) continue; // ld65 writes an exported symbol twice (export and debug info)
    seen.add(key);
    const colon = format === '64tass-vice-labels' ? name.lastIndexOf(':') : -1;
    symbols.push({ name, address, scope: colon > 0 ? name.slice(0, colon) : null });
  }
  return { format, file, symbols, segments: [], modules: [] };
}
