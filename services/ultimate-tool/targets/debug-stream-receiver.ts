// The ultimate target's own debug-stream receiver for one test run: a UDP socket the device
// streams to, which hands every datagram's entries to a sink in arrival order and counts what
// was lost (a sequence jump, an out-of-order or a malformed datagram). Before the sink exists the
// datagrams are kept (the stream starts before the run's protocol is known). In memory only; a
// recorded capture file is the captures feature (captures.ts).
import dgram from 'node:dgram';
import { DEBUG_DATAGRAM_BYTES, datagramEntries, datagramSequence, type StreamCredit } from '../../../engines/ultimate/index.js';

export class DebugStreamReceiver {
  readonly #socket: dgram.Socket;
  #sink: ((entries: Uint32Array) => void) | null = null;
  readonly #held: Uint8Array[] = [];
  #next: number | null = null;
  /** Datagrams lost or out of order since the first one; any loss makes the run's cycles unknown. */
  losses = 0;
  datagrams = 0;

  readonly #credit?: StreamCredit;

  private constructor(socket: dgram.Socket, credit?: StreamCredit) {
    this.#socket = socket;
    this.#credit = credit;
    socket.on('message', (msg) => this.#take(msg));
    credit?.attach(this.port, socket.getRecvBufferSize());
  }

  /**
   * `credit`: the device runs on another thread of this process and paces its stream to what this
   * receiver has taken (stream-credit.ts); absent for hardware and for separately started devices.
   */
  static async open(bindAddress: string, credit?: StreamCredit): Promise<DebugStreamReceiver> {
    const socket = dgram.createSocket({ type: 'udp4', recvBufferSize: 8 * 1024 * 1024 });
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, bindAddress, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    socket.on('error', () => undefined);
    return new DebugStreamReceiver(socket, credit);
  }

  get port(): number {
    return this.#socket.address().port;
  }

  #take(msg: Buffer): void {
    if (msg.length === 2) return; // the firmware's pre-stream probes
    if (msg.length !== DEBUG_DATAGRAM_BYTES) {
      this.losses++;
      return;
    }
    const seq = datagramSequence(msg);
    if (this.#next !== null && seq !== this.#next) this.losses++;
    this.#next = (seq + 1) & 0xffff;
    this.datagrams++;
    this.#credit?.took();
    if (this.#sink) this.#sink(datagramEntries(msg));
    // Node gives every datagram its own buffer: kept as it is, not copied.
    else this.#held.push(msg);
  }

  /** From now on entries go to `sink`; the datagrams held so far first. */
  drainTo(sink: (entries: Uint32Array) => void): void {
    for (const d of this.#held.splice(0)) sink(datagramEntries(d));
    this.#sink = sink;
  }

  close(): void {
    this.#credit?.detach(this.port);
    this.#sink = null;
    this.#socket.close();
  }
}
