// The source frontend: strict UTF-8 decoding one scalar at a time (each decode attempt charges
// one frontend transition), with 1-based line and Unicode-scalar column positions and byte
// offsets for identity spans. Invalid UTF-8 is E100 at the position where the bad sequence
// starts. A BOM is an ordinary scalar.

import { createHash } from 'node:crypto';
import { LispexError, type SourcePosition } from './diagnostics.js';
import type { Meter } from './meter.js';

/**
 * UTF-8 bytes of a JS string. Lone surrogates (which no valid UTF-8 can carry) are encoded as
 * their 3-byte generalized form, so the strict decoder rejects them with E100 instead of the
 * silent U+FFFD replacement `TextEncoder` would make.
 */
export function encodeSource(text: string): Uint8Array {
  const out = new Uint8Array(text.length * 3);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      }
    }
    if (c < 0x80) out[n++] = c;
    else if (c < 0x800) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 63);
    } else if (c < 0x10000) {
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 63);
      out[n++] = 0x80 | (c & 63);
    } else {
      out[n++] = 0xf0 | (c >> 18);
      out[n++] = 0x80 | ((c >> 12) & 63);
      out[n++] = 0x80 | ((c >> 6) & 63);
      out[n++] = 0x80 | (c & 63);
    }
  }
  return out.slice(0, n);
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export const EOF = -1;

/** A cursor over source bytes that decodes lazily and tracks positions. */
export class SourceCursor {
  /** Byte offset of the next undecoded scalar. */
  pos = 0;
  line = 1;
  column = 1;
  private peeked = -2; // -2: nothing decoded yet at `pos`
  private peekedLen = 0;

  constructor(
    readonly bytes: Uint8Array,
    private readonly meter: Meter,
  ) {}

  position(): SourcePosition {
    return { line: this.line, column: this.column };
  }

  /** The next scalar without consuming it (EOF at the end). Decodes (and charges) once. */
  peek(): number {
    if (this.peeked !== -2) return this.peeked;
    if (this.pos >= this.bytes.length) {
      this.peeked = EOF;
      this.peekedLen = 0;
      return EOF;
    }
    this.meter.chargeFrontend();
    this.decodeAt(this.pos);
    return this.peeked;
  }

  /** Consume and return the next scalar. */
  next(): number {
    const c = this.peek();
    if (c === EOF) return EOF;
    this.pos += this.peekedLen;
    this.peeked = -2;
    if (c === 0x0a) {
      this.line++;
      this.column = 1;
    } else this.column++;
    return c;
  }

  private decodeAt(i: number): void {
    const b = this.bytes;
    const b0 = b[i]!;
    if (b0 < 0x80) {
      this.peeked = b0;
      this.peekedLen = 1;
      return;
    }
    let need: number;
    let cp: number;
    let min: number;
    if (b0 >= 0xc2 && b0 <= 0xdf) {
      need = 1;
      cp = b0 & 0x1f;
      min = 0x80;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      need = 2;
      cp = b0 & 0x0f;
      min = 0x800;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      need = 3;
      cp = b0 & 0x07;
      min = 0x10000;
    } else {
      throw this.invalid(b0);
    }
    for (let k = 1; k <= need; k++) {
      const bk = b[i + k];
      if (bk === undefined || (bk & 0xc0) !== 0x80) throw this.invalid(b0);
      cp = (cp << 6) | (bk & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) throw this.invalid(b0);
    this.peeked = cp;
    this.peekedLen = need + 1;
  }

  private invalid(b0: number): LispexError {
    return new LispexError('E100', `invalid UTF-8 sequence starting with byte 0x${b0.toString(16).padStart(2, '0')}`, [], this.position());
  }
}
