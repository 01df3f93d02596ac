// C64 addresses as people write them: decimal, `$ABCD` or `0xABCD`, 0-65535.

export type AddressParse = { readonly ok: true; readonly address: number } | { readonly ok: false; readonly message: string };

const EXPECTED = 'expected an address 0-65535 as decimal (49152), $ABCD or 0xABCD';

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
    return { ok: false, message: `address ${JSON.stringify(value)} is not understood; ${EXPECTED}` };
  }
  if (!Number.isInteger(address) || address < 0 || address > 0xffff) {
    return { ok: false, message: `address ${JSON.stringify(value)} is out of range; ${EXPECTED}` };
  }
  return { ok: true, address };
}

/** `$C000`: four upper-case hex digits, the way the C64 world writes addresses. */
export function addressHex(address: number): string {
  return `$${address.toString(16).toUpperCase().padStart(4, '0')}`;
}
