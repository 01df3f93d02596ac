// Whether a CPU access to $D000–$DFFF reaches the I/O chips or the RAM (or character ROM) under
// them: the C64's PLA decides from the 6510 port's LORAM, HIRAM and CHAREN lines (and, with a
// cartridge, GAME/EXROM). A program that banks I/O out ($01 = $34, say) and fills all 64 KiB
// writes $D7FF as plain RAM: that is not a write to the Ultimate's debug register, nor to VICE's
// debug cartridge, so an observer that watches the address must ask this before counting it.

/** The 6510 port value the PLA sees: inputs read high (pull-ups on bits 0–2), as `$01` reads. */
export function portLines(direction: number, data: number): number {
  return (data | ~direction) & 0x07;
}

/**
 * I/O is visible at $D000–$DFFF when CHAREN is high and LORAM or HIRAM is high, or always in
 * Ultimax mode (GAME low, EXROM high). `lines` is `$01` as read (or `portLines(dir, data)`).
 */
export function ioVisible(lines: number, ultimax = false): boolean {
  if (ultimax) return true;
  return (lines & 0x04) !== 0 && (lines & 0x03) !== 0;
}
