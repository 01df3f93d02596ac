// Decodes debug-stream entries (6510/VIC mode) into typed bus cycles.
// Bit layout (DEVICE.md): 31 PHI2 (1 = CPU half-cycle), 30 GAME#, 29 EXROM#, 28 BA, 27 IRQ#, 26 ROM#,
// 25 NMI#, 24 R/W# (1 = read), 23–16 data, 15–0 address. Lines ending in # are active low, so the
// decoded booleans say "asserted" for those and report the electrical level for PHI2, BA and R/W.
// A CPU read is `flags & 0x91 == 0x91`, a CPU write `flags & 0x81 == 0x80` (flags = top byte).
import { datagramEntries } from './datagram.js';

export type BusAccess = 'read' | 'write' | 'vic';

export interface BusCycle {
  address: number;
  data: number;
  /** R/W# line level: true = read. */
  rw: boolean;
  /** PHI2 level: true = CPU half-cycle, false = VIC half-cycle. */
  phi2: boolean;
  /** BA level: false = the VIC is stealing the bus (badline/sprite DMA). */
  ba: boolean;
  irqAsserted: boolean;
  nmiAsserted: boolean;
  gameAsserted: boolean;
  exromAsserted: boolean;
  /** ROM# asserted: a ROM (BASIC/KERNAL/CHAR) was selected for this access. */
  romSelected: boolean;
  /** CPU read, CPU write, or a VIC / bus-not-available cycle. */
  access: BusAccess;
}

export function classifyEntry(entry: number): BusAccess {
  const flags = entry >>> 24;
  if ((flags & 0x91) === 0x91) return 'read';
  if ((flags & 0x81) === 0x80) return 'write';
  return 'vic';
}

export function decodeEntry(entry: number): BusCycle {
  const e = entry >>> 0;
  return {
    address: e & 0xffff,
    data: (e >>> 16) & 0xff,
    rw: (e & 0x01000000) !== 0,
    phi2: (e & 0x80000000) !== 0,
    ba: (e & 0x10000000) !== 0,
    irqAsserted: (e & 0x08000000) === 0,
    nmiAsserted: (e & 0x02000000) === 0,
    gameAsserted: (e & 0x40000000) === 0,
    exromAsserted: (e & 0x20000000) === 0,
    romSelected: (e & 0x04000000) === 0,
    access: classifyEntry(e),
  };
}

/** Encodes a cycle back to the u32 layout (used by tests and the virtual device's fallbacks). */
export function encodeEntry(c: Omit<BusCycle, 'access'>): number {
  return (
    (((c.phi2 ? 1 : 0) << 31) |
      ((c.gameAsserted ? 0 : 1) << 30) |
      ((c.exromAsserted ? 0 : 1) << 29) |
      ((c.ba ? 1 : 0) << 28) |
      ((c.irqAsserted ? 0 : 1) << 27) |
      ((c.romSelected ? 0 : 1) << 26) |
      ((c.nmiAsserted ? 0 : 1) << 25) |
      ((c.rw ? 1 : 0) << 24) |
      ((c.data & 0xff) << 16) |
      (c.address & 0xffff)) >>>
    0
  );
}

/** All cycles of one datagram, in order. */
export function decodeDatagram(datagram: Uint8Array): BusCycle[] {
  return Array.from(datagramEntries(datagram), decodeEntry);
}

/** Just the CPU writes of one datagram, as {address, data} pairs (the usual question). */
export function cpuWrites(datagram: Uint8Array): Array<{ address: number; data: number }> {
  const out: Array<{ address: number; data: number }> = [];
  for (const e of datagramEntries(datagram)) {
    if (((e >>> 24) & 0x81) === 0x80) out.push({ address: e & 0xffff, data: (e >>> 16) & 0xff });
  }
  return out;
}
