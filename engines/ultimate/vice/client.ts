// A client for the VICE binary monitor (x64sc -binarymonitor), also spoken by the virtual device.
// Requests carry increasing ids; a response resolves the request with the same id once its FINAL
// response type arrives (checkpoint list sends one checkpoint-info per checkpoint first). Frames with
// id 0xFFFFFFFF are events (stopped, resumed, jam, checkpoint hit, registers) and go to listeners.
// Note VICE's rule: any command stops the emulation until `exit` (0xAA) resumes it.
import type net from 'node:net';
import { EventEmitter } from 'node:events';
import { UltimateError, networkError } from '../errors.js';
import { connectTcp } from '../tcp-connect.js';
import {
  EVENT_REQUEST_ID,
  FrameReader,
  ViceCommand,
  ViceRegister,
  ViceResponse,
  decodeCheckpointInfo,
  decodeRegisters,
  encodeRequest,
  type CheckpointInfo,
  type ViceRegisterName,
  type ViceResponseFrame,
} from './protocol.js';

export interface ViceClientOptions {
  host?: string;
  port?: number;
  timeoutMs?: number;
}

export type ViceEvent =
  | { type: 'stopped'; pc: number }
  | { type: 'resumed'; pc: number }
  /**
   * The CPU jammed. VICE sends this event with an empty body (`pcSent` false, `pc` 0) and then the
   * REGISTER_INFO and `stopped` events that carry the PC.
   */
  | { type: 'jam'; pc: number; pcSent: boolean }
  | { type: 'checkpoint'; checkpoint: CheckpointInfo }
  | { type: 'registers'; registers: Registers };

export type Registers = Partial<Record<ViceRegisterName, number>> & { PC: number; A: number; X: number; Y: number; SP: number; FL: number };

const FINAL_TYPE: Record<number, number> = {
  [ViceCommand.checkpointGet]: ViceResponse.checkpointInfo,
  [ViceCommand.checkpointSet]: ViceResponse.checkpointInfo,
  [ViceCommand.registersSet]: ViceResponse.registerInfo,
};

interface Pending {
  command: number;
  partial: ViceResponseFrame[];
  resolve: (r: { final: ViceResponseFrame; partial: ViceResponseFrame[] }) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

const NAMES_BY_ID = new Map<number, ViceRegisterName>(Object.entries(ViceRegister).map(([k, v]) => [v, k as ViceRegisterName]));

function toRegisters(m: Map<number, number>): Registers {
  const r: Partial<Record<ViceRegisterName, number>> = {};
  for (const [id, v] of m) {
    const name = NAMES_BY_ID.get(id);
    if (name) r[name] = v;
  }
  return r as Registers;
}

export class ViceMonitorClient extends EventEmitter<{ event: [ViceEvent]; close: [] }> {
  readonly #socket: net.Socket;
  readonly #timeoutMs: number;
  readonly #reader = new FrameReader<ViceResponseFrame>('response');
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #closed?: Error;

  private constructor(socket: net.Socket, timeoutMs: number) {
    super();
    this.#socket = socket;
    this.#timeoutMs = timeoutMs;
    socket.on('data', (chunk: Buffer) => {
      let frames: ViceResponseFrame[];
      try {
        frames = this.#reader.push(chunk);
      } catch (err) {
        this.#fail(new UltimateError('protocol', `VICE monitor: ${(err as Error).message}`));
        socket.destroy();
        return;
      }
      for (const f of frames) this.#dispatch(f);
    });
    socket.on('error', (e) => this.#fail(networkError(e, 'VICE monitor')));
    socket.on('close', () => {
      this.#fail(new UltimateError('network', 'VICE monitor connection closed'));
      this.emit('close');
    });
  }

  static async connect(opts: ViceClientOptions = {}): Promise<ViceMonitorClient> {
    const host = opts.host ?? '127.0.0.1';
    const port = opts.port ?? 6502;
    const timeoutMs = opts.timeoutMs ?? 10_000;
    const socket = await connectTcp('VICE monitor', host, port, timeoutMs);
    return new ViceMonitorClient(socket, timeoutMs);
  }

  #fail(err: Error): void {
    this.#closed ??= err;
    for (const [id, p] of this.#pending) {
      clearTimeout(p.timer);
      p.reject(this.#closed);
      this.#pending.delete(id);
    }
  }

  #dispatch(f: ViceResponseFrame): void {
    if (f.requestId === EVENT_REQUEST_ID) {
      const ev = this.#decodeEvent(f);
      if (ev) this.emit('event', ev);
      return;
    }
    const p = this.#pending.get(f.requestId);
    if (!p) return; // a late answer to a request that already timed out
    const finalType = FINAL_TYPE[p.command] ?? p.command;
    if (f.error === 0 && f.type !== finalType) {
      p.partial.push(f);
      return;
    }
    clearTimeout(p.timer);
    this.#pending.delete(f.requestId);
    p.resolve({ final: f, partial: p.partial });
  }

  #decodeEvent(f: ViceResponseFrame): ViceEvent | undefined {
    const pc = f.body.length >= 2 ? f.body.readUInt16LE(0) : 0;
    switch (f.type) {
      case ViceResponse.stopped:
        return { type: 'stopped', pc };
      case ViceResponse.resumed:
        return { type: 'resumed', pc };
      case ViceResponse.jam:
        return { type: 'jam', pc, pcSent: f.body.length >= 2 };
      case ViceResponse.checkpointInfo:
        return { type: 'checkpoint', checkpoint: decodeCheckpointInfo(f.body) };
      case ViceResponse.registerInfo:
        return { type: 'registers', registers: toRegisters(decodeRegisters(f.body)) };
      default:
        return undefined;
    }
  }

  /** Sends one command and waits for its final response; a non-zero error byte becomes a `vice` error. */
  async request(
    command: number,
    body: Uint8Array = new Uint8Array(0),
  ): Promise<{ final: ViceResponseFrame; partial: ViceResponseFrame[] }> {
    if (this.#closed) throw this.#closed;
    const id = this.#nextId++;
    if (this.#nextId >= EVENT_REQUEST_ID) this.#nextId = 1;
    const res = await new Promise<{ final: ViceResponseFrame; partial: ViceResponseFrame[] }>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new UltimateError('timeout', `VICE command 0x${command.toString(16)}: no answer within ${this.#timeoutMs} ms`));
      }, this.#timeoutMs);
      this.#pending.set(id, { command, partial: [], resolve, reject, timer });
      this.#socket.write(encodeRequest(id, command, body));
    });
    if (res.final.error !== 0) {
      throw new UltimateError('vice', `VICE command 0x${command.toString(16)} failed with error 0x${res.final.error.toString(16)}`, {
        code: res.final.error,
      });
    }
    return res;
  }

  /** Reads start..end inclusive. `sideEffects` reads as the CPU would (I/O reads can change state). */
  async memoryGet(start: number, end: number, opts: { sideEffects?: boolean; memspace?: number; bank?: number } = {}): Promise<Uint8Array> {
    const b = Buffer.alloc(8);
    b[0] = opts.sideEffects ? 1 : 0;
    b.writeUInt16LE(start, 1);
    b.writeUInt16LE(end, 3);
    b[5] = opts.memspace ?? 0;
    b.writeUInt16LE(opts.bank ?? 0, 6);
    const { final } = await this.request(ViceCommand.memoryGet, b);
    const len = final.body.readUInt16LE(0);
    return new Uint8Array(final.body.subarray(2, 2 + (len === 0 && end - start + 1 === 0x10000 ? 0x10000 : len)));
  }

  async memorySet(start: number, bytes: Uint8Array, opts: { sideEffects?: boolean; memspace?: number; bank?: number } = {}): Promise<void> {
    if (bytes.length === 0 || start + bytes.length > 0x10000)
      throw new UltimateError('bad-input', `memorySet of ${bytes.length} bytes at ${start} must be 1..$FFFF-bounded`);
    const b = Buffer.alloc(8 + bytes.length);
    b[0] = opts.sideEffects ? 1 : 0;
    b.writeUInt16LE(start, 1);
    b.writeUInt16LE(start + bytes.length - 1, 3);
    b[5] = opts.memspace ?? 0;
    b.writeUInt16LE(opts.bank ?? 0, 6);
    b.set(bytes, 8);
    await this.request(ViceCommand.memorySet, b);
  }

  async checkpointSet(c: {
    start: number;
    end?: number;
    stop?: boolean;
    enabled?: boolean;
    op?: number;
    temporary?: boolean;
  }): Promise<CheckpointInfo> {
    const b = Buffer.alloc(8);
    b.writeUInt16LE(c.start, 0);
    b.writeUInt16LE(c.end ?? c.start, 2);
    b[4] = c.stop === false ? 0 : 1;
    b[5] = c.enabled === false ? 0 : 1;
    b[6] = c.op ?? 0x04;
    b[7] = c.temporary ? 1 : 0;
    const { final } = await this.request(ViceCommand.checkpointSet, b);
    return decodeCheckpointInfo(final.body);
  }

  async checkpointDelete(number: number): Promise<void> {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(number, 0);
    await this.request(ViceCommand.checkpointDelete, b);
  }

  async checkpointList(): Promise<CheckpointInfo[]> {
    const { partial } = await this.request(ViceCommand.checkpointList);
    return partial.filter((f) => f.type === ViceResponse.checkpointInfo).map((f) => decodeCheckpointInfo(f.body));
  }

  async registersGet(memspace = 0): Promise<Registers> {
    const { final } = await this.request(ViceCommand.registersGet, Uint8Array.of(memspace));
    return toRegisters(decodeRegisters(final.body));
  }

  async registersSet(values: Partial<Record<ViceRegisterName, number>>, memspace = 0): Promise<Registers> {
    const items = Object.entries(values).filter(([, v]) => v !== undefined) as Array<[ViceRegisterName, number]>;
    const b = Buffer.alloc(3 + items.length * 4);
    b[0] = memspace;
    b.writeUInt16LE(items.length, 1);
    items.forEach(([name, v], i) => {
      b[3 + i * 4] = 3;
      b[4 + i * 4] = ViceRegister[name];
      b.writeUInt16LE(v & 0xffff, 5 + i * 4);
    });
    const { final } = await this.request(ViceCommand.registersSet, b);
    return toRegisters(decodeRegisters(final.body));
  }

  /** Executes `count` instructions (stepping over subroutines when asked); a `stopped` event follows. */
  async step(count = 1, stepOver = false): Promise<void> {
    const b = Buffer.alloc(3);
    b[0] = stepOver ? 1 : 0;
    b.writeUInt16LE(count, 1);
    await this.request(ViceCommand.advanceInstructions, b);
  }

  async keyboardFeed(text: string): Promise<void> {
    const bytes = Buffer.from(text, 'latin1');
    if (bytes.length > 255) throw new UltimateError('bad-input', 'keyboard feed text longer than 255 bytes');
    await this.request(ViceCommand.keyboardFeed, Buffer.concat([Uint8Array.of(bytes.length), bytes]));
  }

  async ping(): Promise<void> {
    await this.request(ViceCommand.ping);
  }
  /** Leaves the monitor: the emulation resumes. */
  async resume(): Promise<void> {
    await this.request(ViceCommand.exit);
  }
  async quit(): Promise<void> {
    await this.request(ViceCommand.quit);
  }
  /** 0 = soft reset, 1 = hard reset (8–11 reset a drive). */
  async reset(type = 0): Promise<void> {
    await this.request(ViceCommand.reset, Uint8Array.of(type));
  }

  async autostart(filename: string, opts: { run?: boolean; fileIndex?: number } = {}): Promise<void> {
    const name = Buffer.from(filename, 'utf8');
    if (name.length > 255) throw new UltimateError('bad-input', 'autostart file name longer than 255 bytes');
    const b = Buffer.alloc(4 + name.length);
    b[0] = opts.run === false ? 0 : 1;
    b.writeUInt16LE(opts.fileIndex ?? 0, 1);
    b[3] = name.length;
    b.set(name, 4);
    await this.request(ViceCommand.autostart, b);
  }

  /** Resolves with the next event matching `pred`, or rejects after `timeoutMs`. */
  waitForEvent<T extends ViceEvent['type']>(
    type: T,
    timeoutMs = this.#timeoutMs,
    pred: (e: Extract<ViceEvent, { type: T }>) => boolean = () => true,
  ): Promise<Extract<ViceEvent, { type: T }>> {
    return new Promise((resolve, reject) => {
      const on = (e: ViceEvent) => {
        if (e.type === type && pred(e as Extract<ViceEvent, { type: T }>)) {
          cleanup();
          resolve(e as Extract<ViceEvent, { type: T }>);
        }
      };
      const onClose = () => {
        cleanup();
        reject(this.#closed ?? new UltimateError('network', 'VICE monitor connection closed'));
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new UltimateError('timeout', `no VICE '${type}' event within ${timeoutMs} ms`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.off('event', on);
        this.off('close', onClose);
      };
      this.on('event', on);
      this.on('close', onClose);
    });
  }

  close(): void {
    this.#socket.destroy();
  }
}
