// 64tass `--map` memory maps: the ranges the output occupies, one row per area:
//   Data:         52   $0801-$0834   $0034
//   Gap:        2045   $0803-$0fff   $07fd
// "Data" rows become segments named by their range ("data $0801-$0834"); gaps are not part of
// the program. The map names no symbols (64tass --vice-labels or -l give those).
import { type SegmentEntry, SymbolFileError, type SymbolTable } from './symbol-table.js';

const ROW = /^(Data|Gap):\s+(\d+)\s+\$([0-9A-Fa-f]{1,6})-\$([0-9A-Fa-f]{1,6})\s+\$([0-9A-Fa-f]{1,6})(?:\s+(.*))?$/;

export function parseTass64Map(text: string, file: string | null = null): SymbolTable {
  const segments: SegmentEntry[] = [];
  let sawHeader = false;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    if (/^64tass .*memory map file$/i.test(line) || /^Memory map for output file:/.test(line)) {
      sawHeader = true;
      return;
    }
    if (/^Type\s+Size\s+Range\s+Size/.test(line)) return;
    const m = ROW.exec(line);
    if (!m)
      throw new SymbolFileError(
        '64tass-map',
        i + 1,
        `expected "Data:|Gap: size $start-$end $size", got ${JSON.stringify(line.slice(0, 80))}`,
      );
    if (m[1] !== 'Data') return;
    const start = Number.parseInt(m[3]!, 16);
    const end = Number.parseInt(m[4]!, 16);
    const name = m[6]?.trim() || `data $${m[3]!.toUpperCase()}-$${m[4]!.toUpperCase()}`;
    segments.push({ name, start, end, size: end - start + 1 });
  });
  if (!sawHeader && segments.length === 0)
    throw new SymbolFileError('64tass-map', 1, 'no "Memory map for output file:" header and no Data rows; is this a 64tass --map file?');
  return { format: '64tass-map', file, symbols: [], segments, modules: [] };
}
