// VICE binary monitor framing (API version 2), shared by the client and the virtual device's server.
//   Request:  0x02, api (0x02), body length u32 LE, request id u32 LE, command u8, body
//   Response: 0x02, api (0x02), body length u32 LE, response type u8, error u8, request id u32 LE, body
// Events are responses with request id 0xFFFFFFFF.
export const STX = 0x02;
export const API_VERSION = 0x02;
export const EVENT_REQUEST_ID = 0xffffffff;
export const REQUEST_HEADER_BYTES = 11;
export const RESPONSE_HEADER_BYTES = 12;

export const ViceCommand = {
  memoryGet: 0x01,
  memorySet: 0x02,
  checkpointGet: 0x11,
  checkpointSet: 0x12,
  checkpointDelete: 0x13,
  checkpointList: 0x14,
  checkpointToggle: 0x15,
  registersGet: 0x31,
  registersSet: 0x32,
  advanceInstructions: 0x71,
  keyboardFeed: 0x72,
  ping: 0x81,
  exit: 0xaa,
  quit: 0xbb,
  reset: 0xcc,
  autostart: 0xdd,
} as const;

/** Response types that are not simply the command code echoed back. */
export const ViceResponse = {
  checkpointInfo: 0x11,
  registerInfo: 0x31,
  jam: 0x61,
  stopped: 0x62,
  resumed: 0x63,
} as const;

export const ViceError = {
  ok: 0x00,
  objectMissing: 0x01,
  invalidMemspace: 0x02,
  invalidLength: 0x80,
  invalidParameter: 0x81,
  invalidApiVersion: 0x82,
  unknownCommand: 0x83,
  generalFailure: 0x8f,
} as const;

/** 6510 register ids as VICE numbers them. */
export const ViceRegister = {
  A: 0x00,
  X: 0x01,
  Y: 0x02,
  PC: 0x03,
  SP: 0x04,
  FL: 0x05,
  LIN: 0x35,
  CYC: 0x36,
  ZERO: 0x37,
  ONE: 0x38,
} as const;
export type ViceRegisterName = keyof typeof ViceRegister;

export const CheckpointOp = { load: 0x01, store: 0x02, exec: 0x04 } as const;

export interface ViceRequestFrame {
  requestId: number;
  command: number;
  body: Buffer;
}
export interface ViceResponseFrame {
  type: number;
  error: number;
  requestId: number;
  body: Buffer;
}

export function encodeRequest(requestId: number, command: number, body: Uint8Array = new Uint8Array(0)): Buffer {
  const b = Buffer.alloc(REQUEST_HEADER_BYTES + body.length);
  b[0] = STX;
  b[1] = API_VERSION;
  b.writeUInt32LE(body.length, 2);
  b.writeUInt32LE(requestId >>> 0, 6);
  b[10] = command;
  b.set(body, REQUEST_HEADER_BYTES);
  return b;
}

export function encodeResponse(type: number, error: number, requestId: number, body: Uint8Array = new Uint8Array(0)): Buffer {
  const b = Buffer.alloc(RESPONSE_HEADER_BYTES + body.length);
  b[0] = STX;
  b[1] = API_VERSION;
  b.writeUInt32LE(body.length, 2);
  b[6] = type;
  b[7] = error;
  b.writeUInt32LE(requestId >>> 0, 8);
  b.set(body, RESPONSE_HEADER_BYTES);
  return b;
}

/**
 * Splits a byte stream into frames. `kind` picks the header layout. A frame that does not start with
 * STX is a protocol error (the stream cannot be resynchronised), reported through the thrown Error.
 */
export class FrameReader<T> {
  #buf: Buffer = Buffer.alloc(0);
  constructor(
    private readonly kind: 'request' | 'response',
    private readonly maxBody = 16 * 1024 * 1024,
  ) {}

  push(chunk: Buffer): T[] {
    this.#buf = this.#buf.length ? Buffer.concat([this.#buf, chunk]) : chunk;
    const out: T[] = [];
    const headerBytes = this.kind === 'request' ? REQUEST_HEADER_BYTES : RESPONSE_HEADER_BYTES;
    while (this.#buf.length >= headerBytes) {
      if (this.#buf[0] !== STX) throw new Error(`binary monitor frame does not start with 0x02 (got 0x${this.#buf[0]!.toString(16)})`);
      const len = this.#buf.readUInt32LE(2);
      if (len > this.maxBody) throw new Error(`binary monitor frame body of ${len} bytes exceeds ${this.maxBody}`);
      if (this.#buf.length < headerBytes + len) break;
      const body = Buffer.from(this.#buf.subarray(headerBytes, headerBytes + len));
      if (this.kind === 'request') {
        out.push({ requestId: this.#buf.readUInt32LE(6), command: this.#buf[10]!, body, api: this.#buf[1] } as unknown as T);
      } else {
        out.push({ type: this.#buf[6]!, error: this.#buf[7]!, requestId: this.#buf.readUInt32LE(8), body } as unknown as T);
      }
      this.#buf = this.#buf.subarray(headerBytes + len);
    }
    return out;
  }
}

export interface CheckpointInfo {
  number: number;
  currentlyHit: boolean;
  start: number;
  end: number;
  stopWhenHit: boolean;
  enabled: boolean;
  op: number;
  temporary: boolean;
  hitCount: number;
  ignoreCount: number;
  hasCondition: boolean;
  memspace: number;
}

export function encodeCheckpointInfo(c: CheckpointInfo): Buffer {
  const b = Buffer.alloc(23);
  b.writeUInt32LE(c.number, 0);
  b[4] = c.currentlyHit ? 1 : 0;
  b.writeUInt16LE(c.start, 5);
  b.writeUInt16LE(c.end, 7);
  b[9] = c.stopWhenHit ? 1 : 0;
  b[10] = c.enabled ? 1 : 0;
  b[11] = c.op;
  b[12] = c.temporary ? 1 : 0;
  b.writeUInt32LE(c.hitCount >>> 0, 13);
  b.writeUInt32LE(c.ignoreCount >>> 0, 17);
  b[21] = c.hasCondition ? 1 : 0;
  b[22] = c.memspace;
  return b;
}

export function decodeCheckpointInfo(b: Buffer): CheckpointInfo {
  if (b.length < 22) throw new Error(`checkpoint info body of ${b.length} bytes is too short`);
  return {
    number: b.readUInt32LE(0),
    currentlyHit: b[4] !== 0,
    start: b.readUInt16LE(5),
    end: b.readUInt16LE(7),
    stopWhenHit: b[9] !== 0,
    enabled: b[10] !== 0,
    op: b[11]!,
    temporary: b[12] !== 0,
    hitCount: b.readUInt32LE(13),
    ignoreCount: b.readUInt32LE(17),
    hasCondition: b[21] !== 0,
    memspace: b.length > 22 ? b[22]! : 0,
  };
}

/** Register info body: u16 count, then items {u8 size (3), u8 id, u16 value}; stride = size + 1. */
export function encodeRegisters(regs: Array<{ id: number; value: number }>): Buffer {
  const b = Buffer.alloc(2 + regs.length * 4);
  b.writeUInt16LE(regs.length, 0);
  regs.forEach((r, i) => {
    b[2 + i * 4] = 3;
    b[3 + i * 4] = r.id;
    b.writeUInt16LE(r.value & 0xffff, 4 + i * 4);
  });
  return b;
}

export function decodeRegisters(b: Buffer): Map<number, number> {
  const out = new Map<number, number>();
  const count = b.readUInt16LE(0);
  let at = 2;
  for (let i = 0; i < count; i++) {
    const size = b[at]!;
    out.set(b[at + 1]!, b.readUInt16LE(at + 2));
    at += size + 1;
  }
  return out;
}
