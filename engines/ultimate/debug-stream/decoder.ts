// Decodes debug-stream entries (6510/VIC mode) into typed bus cycles. The layout depends on the
// product (FIRMWARE-FIDELITY.md #4):
// - U64 (the documentation's table, data_streams.rst): 31 PHI2 (1 = CPU half-cycle), 30 GAME#,
//   29 EXROM#, 28 BA, 27 IRQ#, 26 ROM#, 25 NMI#, 24 R/W# (1 = read). What the U64 core drives
//   on bit 26 is not public.
// - Ultimate-II+ (fpga/cart_slot/vhdl_source/slot_server_v4.vhd): 31 PHI2, 30 GAME#, 29 EXROM#,
//   28 cartridge ROM selected (ROML or ROMH low — active HIGH here), 27 BA, 26 IRQ#, 25 NMI#,
//   24 R/W#.
// Both: 23–16 data, 15–0 address. Lines ending in # are active low, so the decoded booleans say
// "asserted" for those and report the electrical level for PHI2, BA and R/W. A CPU read is PHI2,
// BA and R/W# high; a CPU write PHI2 high and R/W# low (U64: `flags & 0x91 == 0x91` / `& 0x81 ==
// 0x80`, as tools/dump_bus_trace.c).
import { datagramEntries } from './datagram.js';
import type { UltimateFamily } from '../product.js';

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
  /**
   * The stream's "ROM" line asserted: on the Ultimate-II+ the cartridge port's ROML/ROMH select
   * (bit 28, active high); on the U64 bit 26 (ROM#, active low), whose source in the U64 core is not
   * public — the virtual device drives it for BASIC, KERNAL and character ROM reads. On a U2+ it
   * never means "BASIC/KERNAL selected".
   */
  romLine: boolean;
  /**
   * @deprecated Same value as `romLine`. The old name said "a ROM (BASIC/KERNAL/CHAR) was
   * selected", which is not what the hardware line means (see `romLine`).
   */
  romSelected: boolean;
  /** CPU read, CPU write, or a VIC / bus-not-available cycle. */
  access: BusAccess;
}

/** BA's bit per product. */
const BA_BIT: Record<UltimateFamily, number> = { u64: 0x10000000, u2plus: 0x08000000 };

export function classifyEntry(entry: number, family: UltimateFamily = 'u64'): BusAccess {
  const e = entry >>> 0;
  if ((e & 0x80000000) === 0) return 'vic';
  if ((e & 0x01000000) === 0) return 'write';
  return (e & BA_BIT[family]) !== 0 ? 'read' : 'vic';
}

export function decodeEntry(entry: number, family: UltimateFamily = 'u64'): BusCycle {
  const e = entry >>> 0;
  if (family === 'u2plus') {
    return {
      address: e & 0xffff,
      data: (e >>> 16) & 0xff,
      rw: (e & 0x01000000) !== 0,
      phi2: (e & 0x80000000) !== 0,
      ba: (e & 0x08000000) !== 0,
      irqAsserted: (e & 0x04000000) === 0,
      nmiAsserted: (e & 0x02000000) === 0,
      gameAsserted: (e & 0x40000000) === 0,
      exromAsserted: (e & 0x20000000) === 0,
      romLine: (e & 0x10000000) !== 0,
      romSelected: (e & 0x10000000) !== 0,
      access: classifyEntry(e, family),
    };
  }
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
    romLine: (e & 0x04000000) === 0,
    romSelected: (e & 0x04000000) === 0,
    access: classifyEntry(e),
  };
}

/** Encodes a cycle back to the u32 layout of `family` (used by tests and the virtual device). */
export function encodeEntry(
  c: Omit<BusCycle, 'access' | 'romLine' | 'romSelected'> & { romLine?: boolean; romSelected?: boolean },
  family: UltimateFamily = 'u64',
): number {
  const rom = c.romLine ?? c.romSelected ?? false;
  if (family === 'u2plus') {
    return (
      (((c.phi2 ? 1 : 0) << 31) |
        ((c.gameAsserted ? 0 : 1) << 30) |
        ((c.exromAsserted ? 0 : 1) << 29) |
        ((rom ? 1 : 0) << 28) |
        ((c.ba ? 1 : 0) << 27) |
        ((c.irqAsserted ? 0 : 1) << 26) |
        ((c.nmiAsserted ? 0 : 1) << 25) |
        ((c.rw ? 1 : 0) << 24) |
        ((c.data & 0xff) << 16) |
        (c.address & 0xffff)) >>>
      0
    );
  }
  return (
    (((c.phi2 ? 1 : 0) << 31) |
      ((c.gameAsserted ? 0 : 1) << 30) |
      ((c.exromAsserted ? 0 : 1) << 29) |
      ((c.ba ? 1 : 0) << 28) |
      ((c.irqAsserted ? 0 : 1) << 27) |
      ((rom ? 0 : 1) << 26) |
      ((c.nmiAsserted ? 0 : 1) << 25) |
      ((c.rw ? 1 : 0) << 24) |
      ((c.data & 0xff) << 16) |
      (c.address & 0xffff)) >>>
    0
  );
}

/** All cycles of one datagram, in order. */
export function decodeDatagram(datagram: Uint8Array, family: UltimateFamily = 'u64'): BusCycle[] {
  return Array.from(datagramEntries(datagram), (e) => decodeEntry(e, family));
}

/**
 * A U64-layout entry in the Ultimate-II+ layout: BA and IRQ# move down one bit, bit 28 becomes
 * the cartridge ROM select (never active here: no cartridge is emulated). For the virtual device.
 */
export function u64EntryToU2Plus(entry: number): number {
  return ((entry & 0xe3ffffff) | ((entry >>> 1) & 0x0c000000)) >>> 0;
}

/** Just the CPU writes of one datagram, as {address, data} pairs (the usual question). */
export function cpuWrites(datagram: Uint8Array, _family: UltimateFamily = 'u64'): Array<{ address: number; data: number }> {
  // A write is PHI2 high and R/W# low in both layouts.
  const out: Array<{ address: number; data: number }> = [];
  for (const e of datagramEntries(datagram)) {
    if (((e >>> 24) & 0x81) === 0x80) out.push({ address: e & 0xffff, data: (e >>> 16) & 0xff });
  }
  return out;
}
