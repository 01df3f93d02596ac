// Receives the debug stream into a capture file.
// Socket lifecycle (bind, multicast membership, close) goes through dgram-as-promised; datagrams are
// received by a plain 'message' listener that ONLY appends to an in-memory queue. DEVICE.md records
// why: the library's async iterator attaches a one-shot listener per datagram and lost 91% of a
// paced stream whenever the loop body awaited anything. A separate timer drains the queue: it applies
// the bounds, tracks sequence gaps, hashes and writes records to `<file>.tmp-<pid>`, and the finished
// file is renamed into place (atomic: a reader never sees a half-written capture under the name).
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { createHash, type Hash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import DgramAsPromised from 'dgram-as-promised';
import type { SocketAsPromised } from 'dgram-as-promised';
import { UltimateError } from '../errors.js';
import { DEBUG_DATAGRAM_BYTES, datagramSequence } from './datagram.js';
import type { StreamCredit } from './stream-credit.js';
import {
  CAPTURE_VERSION,
  RECORD_HEADER_BYTES,
  SequenceTracker,
  encodeHeader,
  encodeTrailerBody,
  isStreamProbe,
  writeRecordHeader,
  type CaptureStats,
  type Truncation,
} from './capture-file.js';

export interface CaptureOptions {
  /** Where the finished capture goes (written as a temp file, renamed at the end). */
  file: string;
  /** Local address to bind (default 0.0.0.0; use 127.0.0.1 against the virtual device). */
  bindAddress?: string;
  /** Local UDP port (default 11002, the device's debug-stream default; 0 = any free port). */
  port?: number;
  /** Join this multicast group (e.g. 239.0.1.66) on `multicastInterface`. */
  multicastGroup?: string;
  multicastInterface?: string;
  /** Stop after this many datagrams (required bound, 1..50 000 000). */
  maxDatagrams: number;
  /** Stop after this long (required bound, 1 ms .. 1 h). */
  maxDurationMs: number;
  /** Requested kernel receive buffer (default 16 MiB; the kernel may cap it at net.core.rmem_max). */
  recvBufferBytes?: number;
  /** How often the queue is drained to disk (default 10 ms). */
  drainIntervalMs?: number;
  /**
   * The device runs on another thread of this process and paces its stream to what this capture
   * has taken (stream-credit.ts). Absent for hardware and separately started devices.
   */
  credit?: StreamCredit;
}

export interface CaptureSummary extends CaptureStats {
  file: string;
  bytes: number;
  sha256: string;
  /** Receive buffer size the kernel actually granted. */
  recvBufferBytes: number;
}

const MAX_DURATION_MS = 3_600_000;

type ResolvedOptions = Required<Omit<CaptureOptions, 'multicastGroup' | 'multicastInterface' | 'credit'>> &
  Pick<CaptureOptions, 'multicastGroup' | 'multicastInterface' | 'credit'>;

export class DebugStreamCapture {
  readonly #opts: ResolvedOptions;
  readonly #socket: SocketAsPromised;
  readonly #fh: FileHandle;
  readonly #tmp: string;
  readonly #hash: Hash = createHash('sha256');
  readonly #tracker = new SequenceTracker();
  readonly #startedAt: number;
  readonly #startedAtMs: number;
  #queue: Buffer[] = [];
  #times: number[] = [];
  #recorded = 0;
  #malformed = 0;
  #probes = 0;
  #dropped = 0;
  #bytes = 0;
  #truncation: Truncation = 'none';
  #full = false;
  #writes: Promise<unknown> = Promise.resolve();
  /** The first failed write: recording stops there (a file with a hole would be worse than none). */
  #writeError?: unknown;
  #drainTimer?: NodeJS.Timeout;
  #durationTimer?: NodeJS.Timeout;
  #finishing?: Promise<CaptureSummary>;
  #onMessage: (msg: Buffer) => void;
  #boundResolve!: () => void;
  /** Resolves when a bound (count or duration) has been reached. */
  readonly boundReached: Promise<void>;
  readonly address: { address: string; port: number };
  readonly recvBufferBytes: number;

  private constructor(
    opts: ResolvedOptions,
    socket: SocketAsPromised,
    fh: FileHandle,
    tmp: string,
    address: { address: string; port: number },
    recvBufferBytes: number,
  ) {
    this.#opts = opts;
    this.#socket = socket;
    this.#fh = fh;
    this.#tmp = tmp;
    this.address = address;
    this.recvBufferBytes = recvBufferBytes;
    this.boundReached = new Promise<void>((r) => {
      this.#boundResolve = r;
    });
    this.#startedAtMs = Date.now();
    this.#startedAt = performance.now();
    // The receive path: append and nothing else.
    const queue = () => this.#queue;
    const times = () => this.#times;
    const credit = opts.credit;
    this.#onMessage = (msg: Buffer) => {
      queue().push(msg);
      times().push(performance.now());
      if (msg.length === DEBUG_DATAGRAM_BYTES) credit?.took();
    };
    socket.socket.on('message', this.#onMessage);
    credit?.attach(address.port, recvBufferBytes);
    this.#write(
      encodeHeader({
        version: CAPTURE_VERSION,
        datagramBytes: DEBUG_DATAGRAM_BYTES,
        startedAtMs: this.#startedAtMs,
        maxDatagrams: opts.maxDatagrams,
        maxDurationMs: opts.maxDurationMs,
      }),
    );
    this.#drainTimer = setInterval(() => this.#drain(), opts.drainIntervalMs);
    this.#durationTimer = setTimeout(() => this.#reachBound('max-duration'), opts.maxDurationMs);
  }

  /** Binds the socket and opens the temp file; datagrams are recorded from this moment on. */
  static async open(options: CaptureOptions): Promise<DebugStreamCapture> {
    const maxDatagrams = options.maxDatagrams;
    const maxDurationMs = options.maxDurationMs;
    if (!Number.isInteger(maxDatagrams) || maxDatagrams < 1 || maxDatagrams > 50_000_000) {
      throw new UltimateError('bad-input', `maxDatagrams must be an integer 1..50000000, got ${maxDatagrams}`);
    }
    if (!Number.isFinite(maxDurationMs) || maxDurationMs < 1 || maxDurationMs > MAX_DURATION_MS) {
      throw new UltimateError('bad-input', `maxDurationMs must be 1..${MAX_DURATION_MS}, got ${maxDurationMs}`);
    }
    const opts: ResolvedOptions = {
      file: options.file,
      bindAddress: options.bindAddress ?? '0.0.0.0',
      port: options.port ?? 11002,
      multicastGroup: options.multicastGroup,
      multicastInterface: options.multicastInterface,
      maxDatagrams,
      maxDurationMs,
      recvBufferBytes: options.recvBufferBytes ?? 16 * 1024 * 1024,
      drainIntervalMs: options.drainIntervalMs ?? 10,
      credit: options.credit,
    };
    const socket = DgramAsPromised.createSocket({ type: 'udp4', reuseAddr: !!opts.multicastGroup });
    let fh: FileHandle | undefined;
    const tmp = `${opts.file}.tmp-${process.pid}-${Date.now()}`;
    try {
      const bound = await socket.bind({ port: opts.port, address: opts.multicastGroup ? undefined : opts.bindAddress });
      if (opts.multicastGroup) socket.addMembership(opts.multicastGroup, opts.multicastInterface);
      let granted = 0;
      try {
        socket.setRecvBufferSize(opts.recvBufferBytes);
        granted = socket.getRecvBufferSize();
      } catch {
        granted = socket.getRecvBufferSize();
      }
      try {
        fh = await open(tmp, 'wx', 0o600);
      } catch (err) {
        throw new UltimateError('io', `cannot create the capture file next to ${opts.file}: ${(err as Error).message}`, { cause: err });
      }
      return new DebugStreamCapture(opts, socket, fh, tmp, { address: bound.address, port: bound.port }, granted);
    } catch (err) {
      await socket.close().catch(() => undefined);
      if (fh) {
        await fh.close().catch(() => undefined);
        await rm(tmp, { force: true });
      }
      if (err instanceof UltimateError) throw err;
      throw new UltimateError(
        'network',
        `cannot bind the debug-stream receiver on ${opts.bindAddress}:${opts.port}: ${(err as Error).message}`,
        { cause: err },
      );
    }
  }

  /** Datagrams that arrived after the bound so far (drained from the queue). */
  get droppedAfterBound(): number {
    return this.#dropped;
  }

  /** Pre-stream probe datagrams seen so far. */
  get probes(): number {
    return this.#probes;
  }

  /** Datagrams recorded so far (drained from the queue). */
  get recorded(): number {
    return this.#recorded;
  }

  #write(buf: Buffer): void {
    this.#writeMany([buf]);
  }

  /** Hashes and appends buffers in order; writev avoids copying the datagrams once more. */
  #writeMany(parts: Buffer[]): void {
    for (const p of parts) {
      this.#hash.update(p);
      this.#bytes += p.length;
    }
    const fh = this.#fh;
    this.#writes = this.#writes.then(async () => {
      if (this.#writeError !== undefined) return;
      try {
        // writev takes at most IOV_MAX (1024) buffers per call.
        for (let i = 0; i < parts.length; i += 1024) await fh.writev(parts.slice(i, i + 1024));
      } catch (err) {
        this.#writeError = err;
        this.#full = true;
        this.#boundResolve();
      }
    });
  }

  #drain(): void {
    if (this.#queue.length === 0) return;
    const q = this.#queue;
    const t = this.#times;
    this.#queue = [];
    this.#times = [];
    const parts: Buffer[] = [];
    // One allocation for all record headers of this batch (a small Buffer per datagram adds up
    // at ~27 000 datagrams/s).
    const headers = Buffer.allocUnsafe(RECORD_HEADER_BYTES * q.length);
    for (let i = 0; i < q.length; i++) {
      if (this.#full) {
        this.#dropped++;
        continue;
      }
      const msg = q[i]!;
      if (isStreamProbe(msg)) {
        // Sent by the firmware before the stream to resolve our MAC: not data, counted apart.
        this.#probes++;
        continue;
      }
      const seq = msg.length >= 2 ? datagramSequence(msg) : 0;
      if (msg.length !== DEBUG_DATAGRAM_BYTES) this.#malformed++;
      else this.#tracker.observe(seq);
      const h = headers.subarray(RECORD_HEADER_BYTES * i, RECORD_HEADER_BYTES * (i + 1));
      writeRecordHeader(h, this.#recorded, seq, msg.length, (t[i]! - this.#startedAt) * 1000);
      parts.push(h, msg);
      this.#recorded++;
      if (this.#recorded >= this.#opts.maxDatagrams) this.#reachBound('max-datagrams');
    }
    if (parts.length) this.#writeMany(parts);
  }

  #reachBound(kind: Exclude<Truncation, 'none'>): void {
    if (this.#full) return;
    this.#full = true;
    this.#truncation = kind;
    this.#boundResolve();
  }

  /**
   * Stops receiving, writes the trailer with its SHA-256 and renames the file into place.
   * Safe to call more than once (later calls return the same summary).
   */
  finish(): Promise<CaptureSummary> {
    this.#finishing ??= this.#finishNow();
    return this.#finishing;
  }

  async #finishNow(): Promise<CaptureSummary> {
    clearTimeout(this.#durationTimer);
    clearInterval(this.#drainTimer);
    this.#socket.socket.off('message', this.#onMessage);
    this.#opts.credit?.detach(this.address.port);
    await this.#socket.close().catch(() => undefined);
    this.#drain();
    const stats: CaptureStats = {
      datagrams: this.#recorded,
      gaps: this.#tracker.gaps,
      missing: this.#tracker.missing,
      outOfOrder: this.#tracker.outOfOrder,
      droppedAfterBound: this.#dropped,
      malformed: this.#malformed,
      probes: this.#probes,
      truncation: this.#truncation,
      durationMs: performance.now() - this.#startedAt,
    };
    this.#write(encodeTrailerBody(stats));
    const digest = this.#hash.digest();
    const fh = this.#fh;
    this.#writes = this.#writes.then(() => (this.#writeError === undefined ? fh.write(digest) : undefined));
    this.#bytes += digest.length;
    try {
      await this.#writes;
      if (this.#writeError !== undefined) throw this.#writeError;
      await fh.sync();
      await fh.close();
      await rename(this.#tmp, this.#opts.file);
    } catch (err) {
      await fh.close().catch(() => undefined);
      await rm(this.#tmp, { force: true });
      throw new UltimateError('io', `writing capture ${this.#opts.file} failed: ${(err as Error).message}`, { cause: err });
    }
    return { ...stats, file: this.#opts.file, bytes: this.#bytes, sha256: digest.toString('hex'), recvBufferBytes: this.recvBufferBytes };
  }
}
