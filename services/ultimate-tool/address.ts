// C64 addresses as people write them: decimal, `$ABCD` or `0xABCD`. One parser for the manifest
// and the HTTP query strings, so both accept exactly the same spellings.
import { z } from 'zod';

/** Parses a 16-bit address; returns undefined for anything else. */
export function parseAddress(text: string): number | undefined {
  const t = text.trim();
  let n: number;
  if (/^\$[0-9a-fA-F]{1,4}$/.test(t)) n = Number.parseInt(t.slice(1), 16);
  else if (/^0x[0-9a-fA-F]{1,4}$/i.test(t)) n = Number.parseInt(t.slice(2), 16);
  else if (/^[0-9]{1,5}$/.test(t)) n = Number.parseInt(t, 10);
  else return undefined;
  return n <= 0xffff ? n : undefined;
}

export function hex16(n: number): string {
  return `$${n.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** An address field: an integer 0..65535 or a string in one of the three spellings. */
export const AddressSchema = z.union([z.number().int().min(0).max(0xffff), z.string()]).transform((v, ctx) => {
  if (typeof v === 'number') return v;
  const n = parseAddress(v);
  if (n === undefined) {
    ctx.addIssue({ code: 'custom', message: `expected an address 0..65535 as decimal, $ABCD or 0xABCD; got ${JSON.stringify(v)}` });
    return z.NEVER;
  }
  return n;
});
