// Where a PRG's program starts: the SYS target of its BASIC stub (10 SYS 2061), or its load
// address when it has none. The seam's cycles count from the opcode fetch at this address.

export interface PrgEntry {
  load: number;
  /** The address of the first instruction. */
  entry: number;
  /** The opcode there, as loaded (to tell the program's fetch from other reads of that address). */
  opcode: number;
  /** The address of the SYS token ($9E) in the stub, or null without a stub. */
  sysToken: number | null;
}

export function prgEntry(prg: Uint8Array): PrgEntry | null {
  if (prg.length < 3) return null;
  const load = (prg[0] ?? 0) | ((prg[1] ?? 0) << 8);
  const at = (address: number) => prg[address - load + 2];
  const byteAt = (address: number): number | undefined => (address >= load && address - load + 2 < prg.length ? at(address) : undefined);
  if (load === 0x0801) {
    // Link (2), line number (2), then [spaces] SYS [spaces] [(] digits.
    let p = 0x0805;
    while (byteAt(p) === 0x20) p++;
    if (byteAt(p) === 0x9e) {
      const token = p;
      p++;
      while (byteAt(p) === 0x20 || byteAt(p) === 0x28) p++;
      let digits = '';
      for (let c = byteAt(p); c !== undefined && c >= 0x30 && c <= 0x39 && digits.length < 5; c = byteAt(++p))
        digits += String.fromCharCode(c);
      const entry = Number(digits);
      const opcode = byteAt(entry);
      if (digits && entry <= 0xffff && opcode !== undefined) return { load, entry, opcode, sysToken: token };
    }
  }
  const opcode = byteAt(load);
  return opcode === undefined ? null : { load, entry: load, opcode, sysToken: null };
}
