// Where a PRG's program starts: the SYS target of its BASIC stub (`10 SYS 2061`), or its load
// address when it has no stub. The first instruction there is cycle 0 of a run's cycle counts.

/** The entry address of `prg` (2-byte load address, then the bytes). */
export function prgEntryAddress(prg: Uint8Array): number {
  if (prg.length < 3) throw new Error(`a PRG needs a 2-byte load address and at least one byte, got ${prg.length} bytes`);
  const load = prg[0]! | (prg[1]! << 8);
  if (load !== 0x0801 || prg.length < 8) return load;
  // BASIC line: next-line pointer (2), line number (2), then tokens. SYS is token $9E.
  let i = 6;
  while (i < prg.length && prg[i] === 0x20) i++;
  if (prg[i] !== 0x9e) return load;
  i++;
  while (i < prg.length && (prg[i] === 0x20 || prg[i] === 0x28)) i++;
  let digits = '';
  while (i < prg.length && prg[i]! >= 0x30 && prg[i]! <= 0x39) digits += String.fromCharCode(prg[i++]!);
  const n = digits === '' ? Number.NaN : Number(digits);
  return Number.isInteger(n) && n <= 0xffff ? n : load;
}
