// C64 addresses: the one syntax (address-syntax.ts, dependency-free so the dashboard's browser
// bundle can use it too) and the manifest's zod schema for an address field.
import { z } from 'zod';
import { ADDRESS_EXPECTED, parseAddress } from './address-syntax.js';

export { ADDRESS_EXPECTED, type AddressParse, addressHex, addressValue, parseAddress } from './address-syntax.js';

/** An address field of the manifest: an integer 0..65535 or a string in one of the three spellings. */
export const AddressSchema = z.union([z.number().int().min(0).max(0xffff), z.string()]).transform((v, ctx) => {
  if (typeof v === 'number') return v;
  const r = parseAddress(v);
  if (!r.ok) {
    ctx.addIssue({ code: 'custom', message: `${ADDRESS_EXPECTED}; got ${JSON.stringify(v)}` });
    return z.NEVER;
  }
  return r.address;
});
