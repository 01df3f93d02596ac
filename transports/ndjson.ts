import { isUtf8 } from 'node:buffer';
import { ID_SCAN_BYTES, OversizedRequestError, requestIdOf } from './oversized-request.js';
import { JsonParseError, MessageTooLargeError, type JsonRpcMessage } from './transport.js';

/** Default cap on one message: room for topup's 16 MiB file transfer once base64-encoded. */
export const DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024;

const NEWLINE = 0x0a;

export interface LineDecoderEvents {
  message(message: JsonRpcMessage): void;
  error(error: JsonParseError | MessageTooLargeError): void;
}

/**
 * Splits a byte stream into newline-delimited JSON messages.
 * Memory stays bounded: a line that grows past `maxLineBytes` is dropped as it arrives (the rest of
 * it up to the next newline is skipped) and reported once: as OversizedRequestError when its first
 * bytes hold a request's id (see oversized-request.ts), otherwise as MessageTooLargeError.
 */
export class NdjsonDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private discarding = false;

  constructor(
    private readonly events: LineDecoderEvents,
    readonly maxLineBytes: number = DEFAULT_MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      if (this.discarding) {
        if (nl === -1) return;
        this.discarding = false;
        start = nl + 1;
        continue;
      }
      const piece = chunk.subarray(start, end);
      if (this.buffered + piece.length > this.maxLineBytes) {
        const id = requestIdOf(this.head(piece));
        this.chunks = [];
        this.buffered = 0;
        this.discarding = nl === -1;
        this.events.error(
          id === undefined ? new MessageTooLargeError(this.maxLineBytes) : new OversizedRequestError(this.maxLineBytes, id),
        );
        if (nl === -1) return;
        start = nl + 1;
        continue;
      }
      if (nl === -1) {
        this.chunks.push(piece);
        this.buffered += piece.length;
        return;
      }
      const line = this.chunks.length === 0 ? piece : Buffer.concat([...this.chunks, piece]);
      this.chunks = [];
      this.buffered = 0;
      this.emitLine(line);
      start = nl + 1;
    }
  }

  /** The first ID_SCAN_BYTES of the line being dropped: what is buffered, then `piece`. */
  private head(piece: Buffer): string {
    const parts: Buffer[] = [];
    let size = 0;
    for (const part of [...this.chunks, piece]) {
      if (size >= ID_SCAN_BYTES) break;
      parts.push(part.subarray(0, ID_SCAN_BYTES - size));
      size += parts[parts.length - 1]!.length;
    }
    return Buffer.concat(parts).toString('utf8');
  }

  /** The stream ended: a final unterminated line is still a message (or a parse error). */
  end(): void {
    if (this.buffered > 0 && !this.discarding) this.emitLine(Buffer.concat(this.chunks));
    this.chunks = [];
    this.buffered = 0;
    this.discarding = false;
  }

  private emitLine(bytes: Buffer): void {
    // isUtf8 + toString is several times faster than a fatal TextDecoder on large lines
    // (topup's file transfer sends megabytes of base64 per message).
    if (!isUtf8(bytes)) {
      this.events.error(new JsonParseError(bytes.subarray(0, 200).toString('latin1'), new Error('invalid UTF-8')));
      return;
    }
    let text = bytes.toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      this.events.error(new JsonParseError(text, err));
      return;
    }
    this.events.message(parsed as JsonRpcMessage);
  }
}

/** One message as one line. JSON.stringify never emits a raw newline, so framing is safe. */
export function encodeMessage(message: JsonRpcMessage): string {
  return `${JSON.stringify(message)}\n`;
}
