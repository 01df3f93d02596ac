// How a native run's UTR2 token reaches the program and comes back (design: docs/ultimate/NATIVE.md).
// The update file's bytes are fixed (its SHA-256 is bound to the intent), so the per-invocation
// token cannot travel inside it. Instead the service writes a small mailbox into C64 memory with
// the device's ordinary REST `machine:writemem` just before the Run Update trigger; the native
// program reads it through the firmware's C64 memory window (IOBASE + 0x50000 + address) and
// echoes it in its output. The mailbox sits in the C64's cassette buffer ($033C-$03FB), which
// nothing uses unless tape I/O runs.
//
// Layout at C64 $0340: "UTR2" (4 ASCII bytes), one length byte N (1..64), N token bytes.
// The program's answer goes to C64 $0390 in the same layout followed by one status byte, and
// to its UART as the line `UTR2 <token> <status-word>`.

export const UTR2_MAILBOX_C64_ADDRESS = 0x0340;
export const UTR2_REPLY_C64_ADDRESS = 0x0390;
export const UTR2_MAGIC = 'UTR2';
export const UTR2_MAX_TOKEN_BYTES = 64;
/** Token characters: printable and unambiguous on a UART line. */
const TOKEN_PATTERN = /^[A-Za-z0-9._-]+$/;

export class Utr2TokenError extends Error {
  override readonly name = 'Utr2TokenError';
}

export function checkUtr2Token(token: string): void {
  if (token.length < 1 || token.length > UTR2_MAX_TOKEN_BYTES) {
    throw new Utr2TokenError(`UTR2 token of ${token.length} characters; expected 1..${UTR2_MAX_TOKEN_BYTES}`);
  }
  if (!TOKEN_PATTERN.test(token)) throw new Utr2TokenError('UTR2 token may only hold letters, digits, ".", "_" and "-"');
}

/** The mailbox bytes for C64 memory at UTR2_MAILBOX_C64_ADDRESS. */
export function encodeUtr2Mailbox(token: string): Uint8Array {
  checkUtr2Token(token);
  const out = new Uint8Array(5 + token.length);
  out.set(Buffer.from(UTR2_MAGIC, 'latin1'));
  out[4] = token.length;
  out.set(Buffer.from(token, 'latin1'), 5);
  return out;
}

/** Reads a mailbox (request or reply) from C64 memory bytes; undefined when none is there. */
export function decodeUtr2Mailbox(bytes: Uint8Array): { token: string; status?: number } | undefined {
  if (bytes.length < 6 || Buffer.from(bytes.subarray(0, 4)).toString('latin1') !== UTR2_MAGIC) return undefined;
  const n = bytes[4]!;
  if (n < 1 || n > UTR2_MAX_TOKEN_BYTES || bytes.length < 5 + n) return undefined;
  const token = Buffer.from(bytes.subarray(5, 5 + n)).toString('latin1');
  if (!TOKEN_PATTERN.test(token)) return undefined;
  const status = bytes.length > 5 + n ? bytes[5 + n] : undefined;
  return status === undefined ? { token } : { token, status };
}
