// What lives at a C64 address that is not program RAM: the I/O area (VIC-II, SID, colour RAM,
// CIAs, the expansion port's I/O pages, the Ultimate 64's debug register), the BASIC and KERNAL
// ROMs, and the CPU's vectors. An address there is never described by the nearest RAM label below
// it (docs/ultimate/SERVICE.md, "Honest analyses"); the register names come from this table.

export interface HardwareAddress {
  /** 'io' | 'rom' | 'vectors'. */
  space: 'io' | 'rom' | 'vectors';
  /** The chip or area, e.g. "CIA 2", "KERNAL ROM". */
  area: string;
  /** The register's name when the table knows it, e.g. "timer A low". */
  register: string | null;
}

const VIC: Record<number, string> = {
  17: 'control 1 (scroll Y, display enable, raster bit 8)',
  18: 'raster line',
  21: 'sprite enable',
  22: 'control 2 (scroll X)',
  24: 'memory pointers',
  25: 'interrupt flags',
  26: 'interrupt enable',
  32: 'border colour',
  33: 'background colour 0',
};
const CIA = [
  'port A',
  'port B',
  'data direction A',
  'data direction B',
  'timer A low',
  'timer A high',
  'timer B low',
  'timer B high',
  'TOD tenths',
  'TOD seconds',
  'TOD minutes',
  'TOD hours',
  'serial data',
  'interrupt control',
  'control A',
  'control B',
];
const VECTORS: Record<number, string> = {
  65530: 'NMI vector low',
  65531: 'NMI vector high',
  65532: 'RESET vector low',
  65533: 'RESET vector high',
  65534: 'IRQ/BRK vector low',
  65535: 'IRQ/BRK vector high',
};

/** The hardware at `address`, or null for RAM ($0000-$9FFF, $C000-$CFFF). */
export function hardwareAt(address: number): HardwareAddress | null {
  const a = address & 0xffff;
  if (a >= 0xfffa) return { space: 'vectors', area: 'CPU vectors', register: VECTORS[a] ?? null };
  if (a >= 0xe000) return { space: 'rom', area: 'KERNAL ROM', register: null };
  if (a >= 0xa000 && a <= 0xbfff) return { space: 'rom', area: 'BASIC ROM', register: null };
  if (a < 0xd000 || a > 0xdfff) return null;
  if (a === 0xd7ff) return { space: 'io', area: 'Ultimate 64', register: 'debug register' };
  if (a <= 0xd3ff) return { space: 'io', area: 'VIC-II', register: VIC[a & 0x3f] ?? null };
  if (a <= 0xd7ff) return { space: 'io', area: 'SID', register: null };
  if (a <= 0xdbff) return { space: 'io', area: 'colour RAM', register: null };
  if (a <= 0xdcff) return { space: 'io', area: 'CIA 1', register: CIA[a & 0x0f] ?? null };
  if (a <= 0xddff) return { space: 'io', area: 'CIA 2', register: CIA[a & 0x0f] ?? null };
  return { space: 'io', area: a <= 0xdeff ? 'I/O 1 (expansion port)' : 'I/O 2 (expansion port)', register: null };
}

/** "CIA 2 timer A low" / "KERNAL ROM". */
export function describeHardware(h: HardwareAddress): string {
  return h.register ? `${h.area} ${h.register}` : h.area;
}
