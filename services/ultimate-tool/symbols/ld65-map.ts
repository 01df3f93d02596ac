// ld65 `-m` map files: the modules list (each object file and its share of each segment), the
// segment list (placement and size) and the exports (symbols with values).
import { type ModuleEntry, type SegmentEntry, type SymbolEntry, SymbolFileError, type SymbolTable } from './symbol-table.js';

const HEX = '([0-9A-Fa-f]{1,8})';
const MODULE = /^(\S.*):$/;
const MODULE_SEGMENT = new RegExp(`^\\s+(\\S+)\\s+Offs=${HEX}\\s+Size=${HEX}(?:\\s+Align=${HEX})?(?:\\s+Fill=${HEX})?\\s*$`);
const SEGMENT_ROW = new RegExp(`^(\\S+)\\s+${HEX}\\s+${HEX}\\s+${HEX}(?:\\s+${HEX})?\\s*$`);
const EXPORT = new RegExp(`(\\S+)\\s+${HEX}\\s+([A-Z]{1,4})`, 'g');

type Section = 'none' | 'modules' | 'segments' | 'exports' | 'other';

function sectionOf(title: string): Section {
  if (title === 'Modules list:') return 'modules';
  if (title === 'Segment list:') return 'segments';
  if (title === 'Exports list by name:') return 'exports';
  return 'other';
}

export function parseLd65Map(text: string, file: string | null = null): SymbolTable {
  const modules: { name: string; segments: { segment: string; offset: number; size: number }[] }[] = [];
  const segments: SegmentEntry[] = [];
  const symbols: SymbolEntry[] = [];
  const lines = text.split(/\r?\n/);
  let section: Section = 'none';
  let sawModules = false;
  let sawSegments = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const next = lines[i + 1];
    // A section title is a line followed by a rule of dashes.
    if (line.trim() !== '' && !line.startsWith(' ') && next !== undefined && /^-{3,}$/.test(next.trim()) && line.endsWith(':')) {
      section = sectionOf(line.trim());
      if (section === 'modules') sawModules = true;
      if (section === 'segments') sawSegments = true;
      i++;
      continue;
    }
    if (line.trim() === '' || /^-{3,}$/.test(line.trim())) continue;
    const fail = (what: string): never => {
      throw new SymbolFileError('ld65-map', i + 1, `${what}, got ${JSON.stringify(line.slice(0, 80))}`);
    };
    switch (section) {
      case 'modules': {
        const seg = MODULE_SEGMENT.exec(line);
        if (seg) {
          const current = modules.at(-1) ?? fail('a segment line before any module name');
          current.segments.push({ segment: seg[1]!, offset: hex(seg[2]!), size: hex(seg[3]!) });
          break;
        }
        const mod = MODULE.exec(line);
        if (!mod) fail('expected "<object file>:" or "    <SEGMENT> Offs=… Size=…"');
        modules.push({ name: mod![1]!, segments: [] });
        break;
      }
      case 'segments': {
        if (/^Name\s+Start\s+End\s+Size/.test(line)) break;
        const row = SEGMENT_ROW.exec(line) ?? fail('expected "<NAME> <start> <end> <size> <align>"');
        segments.push({ name: row[1]!, start: hex(row[2]!), end: hex(row[3]!), size: hex(row[4]!) });
        break;
      }
      case 'exports': {
        const found = [...line.matchAll(EXPORT)];
        if (found.length === 0) fail('expected "<name> <value> <flags>" pairs');
        for (const m of found) {
          const address = hex(m[2]!);
          if (address <= 0xffff) symbols.push({ name: m[1]!, address, scope: null });
        }
        break;
      }
      default:
        break;
    }
  }
  if (!sawModules && !sawSegments) {
    throw new SymbolFileError('ld65-map', 1, 'no "Modules list:" or "Segment list:" section; is this an ld65 -m map file?');
  }
  const frozen: ModuleEntry[] = modules;
  return { format: 'ld65-map', file, symbols, segments, modules: frozen };
}

function hex(digits: string): number {
  return Number.parseInt(digits, 16);
}
