// What the C64's 64 KiB of DRAM hold at power-on. Real chips come up in a pattern set by the
// board, not zeroed: blocks of four bytes alternating $00 and $FF (the first block two bytes
// short), the whole pattern inverted in every other 16 KiB. Programs depend on it without meaning
// to — a loader that reads uninitialised memory, a demo that shows the idle byte at $3FFF. This is
// the pattern VICE's x64sc starts with (its RAMInit defaults, chosen to match a real board), less
// its rare random bit flips.

/** Fills `ram` (64 KiB) with the power-on pattern. */
export function fillPowerOnPattern(ram: Uint8Array): void {
  for (let addr = 0; addr < ram.length; addr++) {
    const block = ((addr + 2) >> 2) & 1 ? 0xff : 0x00;
    const half = (addr >> 14) & 1 ? 0xff : 0x00;
    ram[addr] = block ^ half;
  }
}
