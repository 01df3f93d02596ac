// The DMA service on TCP port 64 ("socket DMA"): frames of `u16 LE command (FFxx), u16 LE length,
// payload`. With a network password set the firmware drops the connection on any command before a
// successful FF1F authentication, which answers one byte (1 = accepted, 0 = refused, after a
// one-second throttle). Only FF1F, FF0E (identify) and FF76 (debug register) answer at all; the
// other commands are fire-and-forget, so a write is "reported" by the byte count we framed and sent,
// and made certain by a round-trip command afterwards (FF0E), which the firmware only answers once
// every earlier command on the connection has been performed.
import type net from 'node:net';
import { UltimateError, networkError } from './errors.js';
import { connectTcp } from './tcp-connect.js';

export const DMA_COMMANDS = {
  dmaLoad: 0xff01,
  dmaRun: 0xff02,
  keyboard: 0xff03,
  reset: 0xff04,
  wait: 0xff05,
  dmaWrite: 0xff06,
  reuWrite: 0xff07,
  dmaJump: 0xff09,
  identify: 0xff0e,
  authenticate: 0xff1f,
  debugStreamOn: 0xff22,
  debugStreamOff: 0xff32,
  debugRegister: 0xff76,
} as const;

/** Largest REU payload in one frame: 65535 minus the 3-byte REU offset. */
export const REU_MAX_CHUNK = 65532;
/** REU offsets are 24-bit. */
export const REU_SPACE = 0x1000000;

export interface DmaOptions {
  host: string;
  port?: number;
  password?: string;
  timeoutMs?: number;
  /**
   * Reconnect before a command when the connection has been idle this long (default 500 ms): the
   * firmware (3.15) closes DMA connections idle for 1 s.
   */
  idleReconnectMs?: number;
}

export class DmaConnection {
  #socket: net.Socket;
  readonly #opts: DmaOptions;
  readonly #timeoutMs: number;
  readonly #idleReconnectMs: number;
  #buffer: Buffer = Buffer.alloc(0);
  #waiter?: { n: number; resolve: (b: Buffer) => void; reject: (e: Error) => void };
  #closedError?: UltimateError;
  #closedByCaller = false;
  /** Fire-and-forget commands were sent that no round trip has confirmed yet. */
  #unconfirmed = false;
  /** The FF0E answer (length byte + title) once known. */
  #identifyAnswer?: Buffer;
  /** When the connection last sent or received anything (ms, Date.now()). */
  #lastActivity = Date.now();
  /** Times the connection was opened again (after the device closed it, or before it would). */
  reconnects = 0;

  private constructor(socket: net.Socket, opts: DmaOptions) {
    this.#opts = opts;
    this.#timeoutMs = opts.timeoutMs ?? 10_000;
    this.#idleReconnectMs = opts.idleReconnectMs ?? 500;
    this.#socket = socket;
    this.#attach(socket);
  }

  #attach(socket: net.Socket): void {
    socket.on('data', (d: Buffer) => {
      if (socket !== this.#socket) return;
      this.#lastActivity = Date.now();
      this.#buffer = this.#buffer.length ? Buffer.concat([this.#buffer, d]) : d;
      this.#drain();
    });
    const fail = (e: UltimateError) => {
      if (socket !== this.#socket) return;
      this.#closedError ??= e;
      const w = this.#waiter;
      this.#waiter = undefined;
      w?.reject(this.#closedError);
    };
    socket.on('error', (e) => fail(networkError(e, 'DMA connection')));
    socket.on('close', () => fail(new UltimateError('network', 'DMA connection closed by the device')));
  }

  static async #connect(opts: DmaOptions): Promise<net.Socket> {
    const port = opts.port ?? 64;
    const timeoutMs = opts.timeoutMs ?? 10_000;
    return connectTcp('DMA', opts.host, port, timeoutMs);
  }

  async #authenticate(): Promise<void> {
    if (!this.#opts.password) return;
    this.send(DMA_COMMANDS.authenticate, Buffer.from(this.#opts.password, 'utf8'));
    const [ok] = await this.#read(1, 'FF1F authenticate').catch((e: UltimateError) => {
      // A refused password is answered with 0 and then the connection closes; a close before any
      // byte means the same thing from the client's side.
      throw e.kind === 'network' ? new UltimateError('forbidden', 'DMA authentication refused (wrong network password)') : e;
    });
    if (ok !== 1) {
      this.close();
      throw new UltimateError('forbidden', 'DMA authentication refused (wrong network password)');
    }
  }

  /** Connects and, when a password is given, authenticates with FF1F. */
  static async open(opts: DmaOptions): Promise<DmaConnection> {
    const conn = new DmaConnection(await DmaConnection.#connect(opts), opts);
    await conn.#authenticate();
    return conn;
  }

  /**
   * Firmware 3.15 closes a DMA connection that has been idle for 1 s (socket_dma.cc, SO_RCVTIMEO).
   * Before a command, a connection the device closed — or one idle long enough that it may be
   * closing right now — is replaced by a fresh, re-authenticated one. Commands already sent on the
   * old connection were performed or lost with it; nothing is resent.
   */
  async #ensureOpen(): Promise<void> {
    if (this.#closedByCaller) throw new UltimateError('network', 'DMA connection was closed');
    // Commands sent and not yet confirmed must be confirmed on their own connection: never hide
    // their loss behind a fresh one.
    if (this.#unconfirmed) {
      if (this.#closedError) throw this.#closedError;
      return;
    }
    const idle = Date.now() - this.#lastActivity >= this.#idleReconnectMs;
    if (this.#closedError === undefined && !idle) return;
    if (this.#waiter) return; // a read is under way: never swap the socket beneath it
    const old = this.#socket;
    this.#socket = await DmaConnection.#connect(this.#opts);
    old.destroy();
    this.#attach(this.#socket);
    this.#buffer = Buffer.alloc(0);
    this.#closedError = undefined;
    this.#lastActivity = Date.now();
    this.reconnects++;
    await this.#authenticate();
  }

  /** True when the device closed the connection (the next command opens a new one). */
  get closedByDevice(): boolean {
    return this.#closedError !== undefined && !this.#closedByCaller;
  }

  /** Frames and sends one command. */
  send(command: number, payload: Uint8Array = new Uint8Array(0)): void {
    if (payload.length > 0xffff) throw new UltimateError('bad-input', `DMA payload of ${payload.length} bytes exceeds 65535`);
    if (this.#closedError) throw this.#closedError;
    const head = Buffer.alloc(4);
    head.writeUInt16LE(command, 0);
    head.writeUInt16LE(payload.length, 2);
    this.#lastActivity = Date.now();
    if (command !== DMA_COMMANDS.identify && command !== DMA_COMMANDS.authenticate && command !== DMA_COMMANDS.debugRegister) {
      this.#unconfirmed = true;
    }
    // One write per frame: firmware 3.15 performs a payload that stalls for more than its 1 s
    // receive timeout as if it were complete (and reads the rest as new commands), so the client
    // never leaves a gap between a header and its payload.
    this.#socket.write(payload.length ? Buffer.concat([head, payload]) : head);
  }

  #drain(): void {
    const w = this.#waiter;
    if (w && this.#buffer.length >= w.n) {
      const out = this.#buffer.subarray(0, w.n);
      this.#buffer = this.#buffer.subarray(w.n);
      this.#waiter = undefined;
      w.resolve(out);
    }
  }

  #read(n: number, operation: string): Promise<Buffer> {
    if (this.#waiter) return Promise.reject(new UltimateError('protocol', 'concurrent DMA reads'));
    return new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiter = undefined;
        reject(new UltimateError('timeout', `${operation}: no answer within ${this.#timeoutMs} ms`, { operation }));
      }, this.#timeoutMs);
      this.#waiter = {
        n,
        resolve: (b) => {
          clearTimeout(timer);
          resolve(b);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      if (this.#closedError) {
        this.#waiter = undefined;
        clearTimeout(timer);
        reject(this.#closedError);
        return;
      }
      this.#drain();
    });
  }

  /** FF0E: the product title string. Also serves as a barrier after fire-and-forget commands. */
  async identify(): Promise<string> {
    await this.#ensureOpen();
    this.send(DMA_COMMANDS.identify);
    const [len] = await this.#read(1, 'FF0E identify');
    const title = len ? await this.#read(len!, 'FF0E identify') : Buffer.alloc(0);
    this.#unconfirmed = false;
    this.#identifyAnswer = Buffer.concat([Uint8Array.of(len!), title]);
    return title.toString('latin1');
  }

  /**
   * FF76: reads the debug register, optionally writing a new value after the read. Only the U64
   * firmware answers FF76 (socket_dma.cc `#ifdef U64`); an Ultimate-II+ ignores it. So FF76 is
   * followed by FF0E: when the identify answer arrives first, the device ignored FF76 and this
   * fails at once with `unsupported` instead of waiting for a byte that never comes.
   */
  async debugRegister(write?: number): Promise<number> {
    if (this.#identifyAnswer === undefined) await this.identify();
    const ident = this.#identifyAnswer!;
    await this.#ensureOpen();
    this.send(DMA_COMMANDS.debugRegister, write === undefined ? undefined : Uint8Array.of(write & 0xff));
    this.send(DMA_COMMANDS.identify);
    const first = await this.#read(ident.length, 'FF76 debug register');
    if (first.equals(ident)) {
      throw new UltimateError('unsupported', 'FF76: the device does not answer the debug register (U64 firmware only)', {
        operation: 'FF76 debug register',
      });
    }
    await this.#read(1, 'FF76 debug register');
    return first[0]!;
  }

  /**
   * Writes `bytes` into REU memory at the 24-bit `offset`, in frames of ≤65532 bytes, then waits for
   * an identify round trip so every frame is known to be performed. Returns the bytes written.
   */
  async writeReu(offset: number, bytes: Uint8Array): Promise<{ offset: number; bytesWritten: number; frames: number }> {
    if (!Number.isInteger(offset) || offset < 0 || offset >= REU_SPACE) {
      throw new UltimateError('bad-input', `REU offset must be 0..0xFFFFFF, got ${offset}`);
    }
    if (offset + bytes.length > REU_SPACE) {
      throw new UltimateError('bad-input', `REU image of ${bytes.length} bytes at offset ${offset} runs past the 16 MiB REU space`);
    }
    let frames = 0;
    for (let at = 0; at < bytes.length; at += REU_MAX_CHUNK) {
      const chunk = bytes.subarray(at, Math.min(bytes.length, at + REU_MAX_CHUNK));
      const frame = Buffer.alloc(3 + chunk.length);
      const o = offset + at;
      frame[0] = o & 0xff;
      frame[1] = (o >> 8) & 0xff;
      frame[2] = (o >> 16) & 0xff;
      frame.set(chunk, 3);
      this.send(DMA_COMMANDS.reuWrite, frame);
      frames++;
    }
    await this.identify();
    return { offset, bytesWritten: bytes.length, frames };
  }

  /** FF06: raw DMA write into C64 memory. */
  async writeMemory(address: number, bytes: Uint8Array): Promise<void> {
    if (!Number.isInteger(address) || address < 0 || address > 0xffff || address + bytes.length > 0x10000) {
      throw new UltimateError('bad-input', `DMA write of ${bytes.length} bytes at ${address} must stay within $0000-$FFFF`);
    }
    const frame = Buffer.alloc(2 + bytes.length);
    frame.writeUInt16LE(address, 0);
    frame.set(bytes, 2);
    this.send(DMA_COMMANDS.dmaWrite, frame);
    await this.identify();
  }

  /**
   * FF01/FF02/FF09: reset through the boot cartridge and DMA-load `prg` (2-byte load address, then
   * data); then READY ('load'), BASIC RUN ('run': a machine-code program needs a SYS stub) or a
   * jump to `jumpTo` ('jump'; the frame carries the jump address before the PRG).
   */
  async loadPrg(prg: Uint8Array, then: 'load' | 'run' | 'jump', jumpTo = 0): Promise<void> {
    if (prg.length < 2) throw new UltimateError('bad-input', `a PRG needs a 2-byte load address; got ${prg.length} bytes`);
    if (then === 'jump') {
      if (!Number.isInteger(jumpTo) || jumpTo < 0 || jumpTo > 0xffff) {
        throw new UltimateError('bad-input', `jump address must be 0..0xFFFF, got ${jumpTo}`);
      }
      const frame = Buffer.alloc(2 + prg.length);
      frame.writeUInt16LE(jumpTo, 0);
      frame.set(prg, 2);
      this.send(DMA_COMMANDS.dmaJump, frame);
    } else this.send(then === 'run' ? DMA_COMMANDS.dmaRun : DMA_COMMANDS.dmaLoad, prg);
    await this.identify();
  }

  close(): void {
    this.#closedByCaller = true;
    this.#socket.destroy();
  }
}
