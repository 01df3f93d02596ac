// C's strtol as the firmware uses it to parse REST parameters and config values: leading blanks, an
// optional sign, digits until the first non-digit (0 when there are none). Base 16 accepts an
// optional 0x; base 0 picks the base from the prefix — 0x hexadecimal, a leading 0 octal, else
// decimal — as `readmem`'s length and integer config items are parsed.
export function strtol(s: string | undefined, base: 0 | 10 | 16): number {
  if (s === undefined) return 0;
  let b: number = base;
  let m: RegExpExecArray | null;
  if (base === 0) {
    m = /^\s*([+-]?)0[xX]([0-9a-fA-F]+)/.exec(s);
    if (m) b = 16;
    else {
      m = /^\s*([+-]?)0([0-7]*)/.exec(s);
      if (m) b = 8;
      else {
        m = /^\s*([+-]?)([0-9]*)/.exec(s);
        b = 10;
      }
    }
  } else m = base === 16 ? /^\s*([+-]?)(?:0[xX])?([0-9a-fA-F]*)/.exec(s) : /^\s*([+-]?)([0-9]*)/.exec(s);
  if (!m?.[2]) return 0;
  const v = parseInt(m[2], b);
  const clamped = Math.min(v, 0x7fffffff);
  return m[1] === '-' ? -clamped : clamped;
}
