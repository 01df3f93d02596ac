import type { Readable, Writable } from 'node:stream';
import { NdjsonDecoder, encodeMessage, DEFAULT_MAX_LINE_BYTES } from './ndjson.js';
import { OversizedRequestAnswered, OversizedRequestError, oversizedAnswer } from './oversized-request.js';
import type { JsonRpcMessage, Transport } from './transport.js';

export interface StreamTransportOptions {
  /** Largest accepted incoming message in bytes (default 32 MiB). */
  maxLineBytes?: number;
  /** Called by close() to release what the streams belong to (a socket, a child process…). */
  onClose?: () => void | Promise<void>;
}

/**
 * Newline-delimited JSON over a readable/writable pair. The base of the stdio, Unix-socket,
 * child-process and SSH-channel transports.
 */
export class StreamTransport implements Transport {
  onmessage?: (message: JsonRpcMessage, extra?: unknown) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  sessionId?: string;

  private readonly decoder: NdjsonDecoder;
  private started = false;
  private closed = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly options: StreamTransportOptions = {},
  ) {
    this.decoder = new NdjsonDecoder(
      {
        message: (m) => this.onmessage?.(m),
        error: (e) => {
          if (!(e instanceof OversizedRequestError)) return this.onerror?.(e);
          // Answered here, with its id, the moment the line passes the cap: the session never
          // sees the message, and gets a report that asks for no answer of its own.
          this.send(oversizedAnswer(e.requestId, e.limitBytes)).catch(() => {});
          this.onerror?.(new OversizedRequestAnswered(e.requestId, e.limitBytes));
        },
      },
      options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    );
  }

  private readonly onData = (chunk: Buffer | string) => {
    this.decoder.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  };
  private readonly onEnd = () => {
    this.decoder.end();
    void this.close();
  };
  private readonly onStreamError = (err: Error) => {
    // EPIPE/ECONNRESET after the peer went away end the session; report, then close.
    this.onerror?.(err);
    void this.close();
  };

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('close', this.onEnd);
    this.input.on('error', this.onStreamError);
    this.output.on('error', this.onStreamError);
  }

  send(message: JsonRpcMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('transport is closed'));
    return new Promise((resolve, reject) => {
      this.output.write(encodeMessage(message), (err) => (err ? reject(err) : resolve()));
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('close', this.onEnd);
    try {
      await this.options.onClose?.();
    } finally {
      this.onclose?.();
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }
}
