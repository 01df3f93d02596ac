// C64 addresses as people write them: decimal, `$ABCD` or `0xABCD` (the x in either case),
// 0-65535 — the API's one address syntax. The manifest, the HTTP query strings, the analyses and
// the adapter's tool inputs (checked before any request) all parse with this file, so all accept
// exactly the same spellings. Exactly as written: a stray space or newline is none of the three.
// This file has no dependency (the dashboard's browser bundle imports it); address.ts adds the
// manifest's zod schema.

export type AddressParse = { readonly ok: true; readonly address: number } | { readonly ok: false; readonly message: string };

/** What every refusal of an address says was expected. */
export const ADDRESS_EXPECTED = 'expected an address 0-65535 as decimal (49152), $ABCD or 0xABCD';

export function parseAddress(value: string | number): AddressParse {
  let address: number;
  if (typeof value === 'number') {
    address = value;
  } else if (/^[0-9]{1,5}$/.test(value)) {
    address = Number(value);
  } else if (/^\$[0-9a-fA-F]{1,4}$/.test(value)) {
    address = Number.parseInt(value.slice(1), 16);
  } else if (/^0[xX][0-9a-fA-F]{1,4}$/.test(value)) {
    address = Number.parseInt(value.slice(2), 16);
  } else {
    return { ok: false, message: `address ${JSON.stringify(value)} is not understood; ${ADDRESS_EXPECTED}` };
  }
  if (!Number.isInteger(address) || address < 0 || address > 0xffff) {
    return { ok: false, message: `address ${JSON.stringify(value)} is out of range; ${ADDRESS_EXPECTED}` };
  }
  return { ok: true, address };
}

/** The address, or undefined when the value is not one (for callers that word their own refusal). */
export function addressValue(value: string | number): number | undefined {
  const r = parseAddress(value);
  return r.ok ? r.address : undefined;
}

/** `$C000`: four upper-case hex digits, the way the C64 world writes addresses. */
export function addressHex(address: number): string {
  return `$${address.toString(16).toUpperCase().padStart(4, '0')}`;
}
