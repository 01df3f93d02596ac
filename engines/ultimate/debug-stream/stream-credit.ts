// Flow control for a debug stream whose sender and receiver are two threads of one process: the
// virtual device on its own thread (`serve --virtual-device`) and the service judging the stream.
//
// Why: the stream is UDP and has no flow control, on the wire or in the firmware. The real device
// sends at the C64's pace (~2 737 datagrams a second), which any receiver keeps up with. A virtual
// device at full speed on another core sends 10–20 times that, and a receiver busy for a moment
// (a garbage collection, a request) lets its socket overflow: a lost datagram makes a run's cycles
// unknown. So the receiver counts the datagrams it took into shared memory, and the sender holds
// back while it is a window ahead. The datagrams themselves, and the UDP path, are unchanged.
//
// Shared memory (Int32Array): the receiving port (0: nobody paces), an epoch that changes on each
// attach, the datagrams taken since the attach, and the window (how many datagrams the receiver's
// socket buffer holds, from the buffer the kernel granted it).

const PORT = 0;
const EPOCH = 1;
const RECEIVED = 2;
const WINDOW = 3;
const SLOTS = 4;

/** The kernel's accounting per queued 1444-byte datagram on loopback (its skb's truesize), rounded up. */
const BYTES_PER_QUEUED_DATAGRAM = 4096;
const MIN_WINDOW = 32;
const MAX_WINDOW = 1024;
/** The receiver wakes a waiting sender every this many datagrams (not each: a wake is a syscall). */
const NOTIFY_EVERY = 16;

export class StreamCredit {
  /** Share this with the other thread (postMessage / workerData) and wrap it there. */
  readonly buffer: SharedArrayBuffer;
  readonly #slots: Int32Array;

  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(SLOTS * 4)) {
    if (buffer.byteLength < SLOTS * 4)
      throw new RangeError(`a stream credit needs ${SLOTS * 4} bytes of shared memory, got ${buffer.byteLength}`);
    this.buffer = buffer;
    this.#slots = new Int32Array(buffer, 0, SLOTS);
  }

  // The receiver's side.

  /** A receiver listens on `port` with a socket buffer of `recvBufferBytes`: the sender paces to it from now. */
  attach(port: number, recvBufferBytes: number): void {
    const s = this.#slots;
    Atomics.store(s, PORT, 0);
    Atomics.store(s, RECEIVED, 0);
    const window = Math.floor(recvBufferBytes / BYTES_PER_QUEUED_DATAGRAM);
    Atomics.store(s, WINDOW, Math.max(MIN_WINDOW, Math.min(MAX_WINDOW, window)));
    Atomics.add(s, EPOCH, 1);
    Atomics.store(s, PORT, port);
    Atomics.notify(s, RECEIVED);
  }

  /** The receiver took one data datagram off its socket (hot path: one atomic add). */
  took(): void {
    const n = Atomics.add(this.#slots, RECEIVED, 1) + 1;
    if (n % NOTIFY_EVERY === 0) Atomics.notify(this.#slots, RECEIVED);
  }

  /** The receiver on `port` stopped listening: the sender no longer paces (unless another attached since). */
  detach(port: number): void {
    if (Atomics.compareExchange(this.#slots, PORT, port, 0) === port) Atomics.notify(this.#slots, RECEIVED);
  }

  // The sender's side.

  /** Paces one sender: call `beforeSend(port)` before each data datagram it sends. */
  pacer(maxStallMs = 2000): StreamPacer {
    return new StreamPacer(this.#slots, maxStallMs);
  }
}

export class StreamPacer {
  readonly #slots: Int32Array;
  readonly #maxStallMs: number;
  #epoch = -1;
  /** Datagrams sent to the attached receiver since its attach. */
  #sent = 0;
  /** The receiver stopped taking datagrams for maxStallMs: no pacing until the next attach. */
  #gaveUp = false;
  /** Times the sender waited, and the milliseconds it spent waiting (for the device's counters). */
  waits = 0;
  waitedMs = 0;

  constructor(slots: Int32Array, maxStallMs: number) {
    this.#slots = slots;
    this.#maxStallMs = maxStallMs;
  }

  /**
   * Blocks this thread while the receiver on `port` is a window behind; returns at once when no
   * receiver paces that port. A receiver that takes nothing for maxStallMs is given up on (it is
   * gone or stuck): the stream then runs unpaced, as it would to any other receiver.
   */
  beforeSend(port: number): void {
    const s = this.#slots;
    if (Atomics.load(s, PORT) !== port) return;
    const epoch = Atomics.load(s, EPOCH);
    if (epoch !== this.#epoch) {
      this.#epoch = epoch;
      this.#sent = 0;
      this.#gaveUp = false;
    }
    if (!this.#gaveUp) {
      const window = Atomics.load(s, WINDOW);
      const received = Atomics.load(s, RECEIVED);
      if (this.#sent - received >= window) this.#wait(port, epoch, window, received);
    }
    this.#sent++;
  }

  #wait(port: number, epoch: number, window: number, received: number): void {
    this.waits++;
    const t0 = performance.now();
    let progressAt = t0;
    // Wait for room for NOTIFY_EVERY more, so the next sends do not wait one by one.
    while (this.#sent - received > window - NOTIFY_EVERY) {
      Atomics.wait(this.#slots, RECEIVED, received, 5);
      const now = performance.now();
      if (Atomics.load(this.#slots, PORT) !== port || Atomics.load(this.#slots, EPOCH) !== epoch) break;
      const next = Atomics.load(this.#slots, RECEIVED);
      if (next !== received) progressAt = now;
      else if (now - progressAt > this.#maxStallMs) {
        this.#gaveUp = true;
        break;
      }
      received = next;
    }
    this.waitedMs += performance.now() - t0;
  }
}
