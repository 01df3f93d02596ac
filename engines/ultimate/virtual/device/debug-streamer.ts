// The virtual device's debug stream: every bus cycle the emulated CPU performs becomes one u32
// entry; 360 entries make a 1444-byte datagram (u16 LE sequence, u16 reserved, entries LE), sent to
// a unicast or multicast receiver. The pace is the emulated clock's: at 1× that is ~2737 datagrams/s.
// For loss tests the streamer can drop datagrams on purpose; a dropped datagram still consumes its
// sequence number, exactly as a datagram lost on the wire would.
import dgram from 'node:dgram';
import { isIPv4 } from 'node:net';
import { endianness } from 'node:os';
import { DEBUG_DATAGRAM_BYTES, DEBUG_ENTRIES_PER_DATAGRAM, DEBUG_HEADER_BYTES } from '../../debug-stream/datagram.js';
import type { StreamCredit, StreamPacer } from '../../debug-stream/stream-credit.js';

export interface DebugStreamerOptions {
  /** Decides per datagram (by sequence and ordinal since start) whether to drop it on purpose. */
  drop?: (sequence: number, ordinal: number) => boolean;
  /** Source address to bind the sending socket to (default 127.0.0.1). */
  bindAddress?: string;
  /**
   * Two-byte `00 00` probes sent to a unicast receiver before the stream, as the firmware does
   * while it resolves the receiver's MAC (data_streamer.cc: 1 to 10). Default 2.
   */
  probes?: number;
  /**
   * UDP source port. The firmware sends from 6510 (data_streamer.cc); the default takes 6510 when
   * it is free and an ephemeral port otherwise (several virtual devices on one host). A port given
   * explicitly must be free; 0 always takes an ephemeral one.
   */
  sourcePort?: number;
  /**
   * Flow control with a receiver on another thread of this process (stream-credit.ts): the sends
   * hold back while that receiver is a window behind. Never with a receiver on the sender's own
   * thread: it could not take anything while the sender waits.
   */
  credit?: StreamCredit;
}

/** The firmware's debug-stream source port. */
export const DEBUG_STREAM_SOURCE_PORT = 6510;

export interface StreamDestination {
  host: string;
  port: number;
}

const LITTLE_ENDIAN_HOST = endianness() === 'LE';

/**
 * Datagrams sent per turn of the event loop at most. Node's UDP socket reads 32 datagrams a turn,
 * so a receiver in the same process as the machine loses none when no turn sends more.
 */
export const SEND_PER_TURN = 24;

/** Parses `host[:port]` as the REST `ip` parameter does; the default port is the debug stream's 11002. */
export function parseDestination(s: string, defaultPort = 11002): StreamDestination | undefined {
  const m = /^([0-9.]+)(?::(\d{1,5}))?$/.exec(s.trim());
  if (!m || !isIPv4(m[1]!)) return undefined;
  const port = m[2] === undefined ? defaultPort : Number(m[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: m[1]!, port };
}

export class DebugStreamer {
  #socket?: dgram.Socket;
  #dest?: StreamDestination;
  #entries = new Uint32Array(DEBUG_ENTRIES_PER_DATAGRAM);
  /** The entries' bytes, for the copy into a datagram (made once, not per datagram). */
  readonly #entryBytes = new Uint8Array(this.#entries.buffer, 0, DEBUG_ENTRIES_PER_DATAGRAM * 4);
  #fill = 0;
  #sequence = 0;
  #ordinal = 0;
  readonly #drop?: (sequence: number, ordinal: number) => boolean;
  readonly #bindAddress: string;
  readonly #probes: number;
  readonly #sourcePort: number | undefined;
  readonly #pacer?: StreamPacer;
  /** The bound source port once a stream has been started (6510 unless configured or taken). */
  boundSourcePort?: number;
  /** Read on the hot path: true while a destination is set. */
  active = false;
  sent = 0;
  droppedOnPurpose = 0;
  /**
   * Datagrams made but not sent yet, each with its destination. A synchronous run of the machine
   * (the reset of run_prg boots to READY in one go: ~2 M clocks, ~12 000 datagrams) makes far more
   * than a receiver's socket holds; they go out SEND_PER_TURN a turn instead of all at once, and
   * the clock waits while they do (`backlog`).
   */
  #queue: Array<{ buf: Buffer; dest: StreamDestination }> = [];
  /** The first unsent datagram of #queue (sent ones are dropped from the array in batches, not one splice a turn). */
  #head = 0;
  #pump?: NodeJS.Immediate;
  sendErrors = 0;

  constructor(opts: DebugStreamerOptions = {}) {
    this.#drop = opts.drop;
    this.#bindAddress = opts.bindAddress ?? '127.0.0.1';
    const probes = opts.probes ?? 2;
    if (!Number.isInteger(probes) || probes < 1 || probes > 10) {
      throw new RangeError(`probes must be 1..10 (the firmware sends at most 10); got ${probes}`);
    }
    this.#probes = probes;
    const sp = opts.sourcePort;
    if (sp !== undefined && (!Number.isInteger(sp) || sp < 0 || sp > 65535)) {
      throw new RangeError(`sourcePort must be 0..65535; got ${sp}`);
    }
    this.#sourcePort = sp;
    this.#pacer = opts.credit?.pacer();
  }

  /** How often, and how long in all, the sends waited for a paced receiver (0 without `credit`). */
  get paceWaits(): { waits: number; waitedMs: number } {
    return { waits: this.#pacer?.waits ?? 0, waitedMs: this.#pacer?.waitedMs ?? 0 };
  }

  get destination(): StreamDestination | undefined {
    return this.#dest;
  }

  #opening?: Promise<void>;

  async #bind(port: number): Promise<dgram.Socket> {
    const s = dgram.createSocket({ type: 'udp4' });
    await new Promise<void>((resolve, reject) => {
      s.once('error', (err) => {
        s.close();
        reject(err);
      });
      s.bind(port, this.#bindAddress, () => {
        s.removeAllListeners('error');
        resolve();
      });
    });
    return s;
  }

  async #openSocket(): Promise<void> {
    let s: dgram.Socket;
    if (this.#sourcePort !== undefined) s = await this.#bind(this.#sourcePort);
    else {
      try {
        s = await this.#bind(DEBUG_STREAM_SOURCE_PORT);
      } catch {
        // 6510 is taken (another virtual device, another program): any port will do.
        s = await this.#bind(0);
      }
    }
    s.on('error', () => {
      this.sendErrors++;
    });
    this.boundSourcePort = s.address().port;
    try {
      s.setSendBufferSize(4 * 1024 * 1024);
    } catch {
      /* the kernel caps it; not fatal */
    }
    this.#socket = s;
  }

  /** Starts (or redirects) the stream. The sequence restarts at 0, as on a fresh stream start. */
  async start(dest: StreamDestination): Promise<void> {
    // Two starts at once (REST and the DMA port) share one socket.
    this.#opening ??= this.#openSocket().catch((err: unknown) => {
      this.#opening = undefined;
      throw err;
    });
    await this.#opening;
    if (!this.#socket) return;
    const socket = this.#socket;
    const first = Number(dest.host.split('.')[0]);
    const multicast = first >= 224 && first <= 239;
    if (!multicast && first !== 255) {
      // The firmware's ARP step: 00 00 datagrams to the receiver's port before the data.
      for (let i = 0; i < this.#probes; i++) {
        await new Promise<void>((resolve) => socket.send(Uint8Array.of(0, 0), dest.port, dest.host, () => resolve()));
      }
    }
    if (multicast) {
      socket.setMulticastTTL(1);
      socket.setMulticastLoopback(true);
      try {
        socket.setMulticastInterface(this.#bindAddress);
      } catch {
        /* default interface */
      }
    }
    this.#dest = dest;
    this.#fill = 0;
    this.#sequence = 0;
    this.#ordinal = 0;
    this.active = true;
  }

  stop(): void {
    this.active = false;
    this.#dest = undefined;
    this.#fill = 0;
  }

  /** Datagrams waiting to be sent (the machine's clock holds back while there are many). */
  get backlog(): number {
    return this.#queue.length - this.#head;
  }

  async close(): Promise<void> {
    this.stop();
    this.#queue = [];
    this.#head = 0;
    if (this.#pump) clearImmediate(this.#pump);
    this.#pump = undefined;
    await this.#opening?.catch(() => undefined);
    const s = this.#socket;
    this.#socket = undefined;
    this.#opening = undefined;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }

  /** Hot path: one call per bus cycle while active. */
  push(entry: number): void {
    this.#entries[this.#fill++] = entry;
    if (this.#fill === DEBUG_ENTRIES_PER_DATAGRAM) this.#emit();
  }

  #emit(): void {
    this.#fill = 0;
    const seq = this.#sequence;
    this.#sequence = (seq + 1) & 0xffff;
    const ordinal = this.#ordinal++;
    if (this.#drop?.(seq, ordinal)) {
      this.droppedOnPurpose++;
      return;
    }
    const dest = this.#dest;
    const socket = this.#socket;
    if (!dest || !socket) return;
    const buf = Buffer.allocUnsafe(DEBUG_DATAGRAM_BYTES);
    buf[0] = seq & 0xff;
    buf[1] = seq >> 8;
    buf[2] = 0;
    buf[3] = 0;
    if (LITTLE_ENDIAN_HOST) {
      buf.set(this.#entryBytes, DEBUG_HEADER_BYTES);
    } else {
      for (let i = 0; i < DEBUG_ENTRIES_PER_DATAGRAM; i++) buf.writeUInt32LE(this.#entries[i]!, DEBUG_HEADER_BYTES + 4 * i);
    }
    this.#queue.push({ buf, dest });
    this.#pump ??= setImmediate(() => this.#send());
  }

  #send(): void {
    this.#pump = undefined;
    const socket = this.#socket;
    const queue = this.#queue;
    if (!socket) {
      this.#queue = [];
      this.#head = 0;
      return;
    }
    // No per-datagram callback (one closure less per send at ~27k/s); send errors arrive as the
    // socket's 'error' events, counted in sendErrors.
    const end = Math.min(queue.length, this.#head + SEND_PER_TURN);
    for (let i = this.#head; i < end; i++) {
      const { buf, dest } = queue[i]!;
      this.#pacer?.beforeSend(dest.port);
      socket.send(buf, dest.port, dest.host);
      this.sent++;
    }
    this.#head = end;
    if (end === queue.length) {
      queue.length = 0;
      this.#head = 0;
    } else {
      if (end >= 4096) {
        queue.splice(0, end);
        this.#head = 0;
      }
      this.#pump = setImmediate(() => this.#send());
    }
  }
}
