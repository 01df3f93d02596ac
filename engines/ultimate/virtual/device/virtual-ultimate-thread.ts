// The virtual Ultimate on its own thread: what `ultimate-tool serve --virtual-device` starts.
//
// Why a thread: at full speed the device's stream is tens of thousands of UDP datagrams a second,
// and sending them costs as much as emulating the C64. In the service's own thread the emulation,
// the sends and the service's receiving and judging took turns on one core; on its own thread the
// device emulates and sends on a second core while the service receives. Because the receiver is
// no longer on the sender's event loop, the stream is paced by a StreamCredit the two threads share
// (stream-credit.ts): nothing is lost when the service is busy for a moment.
//
// The device is reached exactly as before: by its ports (REST, FTP, DMA, VICE monitor), which is
// all the service uses. This class only starts, starts the clock of, counts and stops it.
import type { Worker } from 'node:worker_threads';
import { locateScript, startScriptWorker } from '../../../../common/worker-script.js';
import { StreamCredit } from '../../debug-stream/stream-credit.js';
import { PortInUseError, type VirtualServiceRole } from './port-in-use-error.js';
import type { VirtualPorts, VirtualUltimateOptions } from './virtual-ultimate.js';

/** What the thread is started with: the device's options (those that can cross a thread) and the credit. */
export interface ThreadStart {
  options: VirtualThreadOptions;
  credit: SharedArrayBuffer;
}
export type ThreadRequest = { type: 'start-clock' } | { type: 'stats' } | { type: 'stop' };
export type ThreadReply =
  | { type: 'started'; ports: VirtualPorts; identity: Record<string, unknown> }
  | { type: 'failed'; error: { name: string; message: string; role?: string; host?: string; port?: number; code?: string } }
  | { type: 'clock-started' }
  | ({ type: 'stats' } & DeviceThreadStats)
  | { type: 'stopped' };

/** The device's options that can be sent to another thread (no callbacks); the clock starts on startClock(). */
export type VirtualThreadOptions = Omit<VirtualUltimateOptions, 'dropDatagram' | 'streamCredit' | 'autoStart'>;

export interface DeviceThreadStats {
  /** Debug-stream datagrams sent since the device started. */
  sent: number;
  /** C64 clocks run since the device started. */
  executed: number;
  /** How often the stream waited for its receiver, and for how long in all. */
  waits: number;
  waitedMs: number;
}

export class VirtualUltimateThread {
  readonly ports: VirtualPorts;
  /** /v1/info's identity of the device played. */
  readonly identity: Record<string, unknown>;
  /** Hand this to the stream's receivers on this thread (the service's): they pace the device's stream. */
  readonly streamCredit: StreamCredit;
  readonly #worker: Worker;
  #stopped = false;
  /** The thread has ended (stopped or crashed): nothing can be asked of it any more. */
  #exited = false;

  private constructor(worker: Worker, credit: StreamCredit, started: Extract<ThreadReply, { type: 'started' }>) {
    this.#worker = worker;
    this.streamCredit = credit;
    this.ports = started.ports;
    this.identity = started.identity;
  }

  /**
   * Starts the device on its own thread with every port bound and its clock stopped. A port that
   * cannot be bound rejects with PortInUseError, as VirtualUltimate.start does. `onExit` hears of a
   * thread that ended without stop() (the device crashed: its ports are gone).
   */
  static async start(options: VirtualThreadOptions = {}, onExit?: (reason: string) => void): Promise<VirtualUltimateThread> {
    const credit = new StreamCredit();
    const data: ThreadStart = { options, credit: credit.buffer };
    // The device writes nothing to stdout; if it ever did, it must not reach a caller's stdout
    // (the service prints its address there): the thread's stdout goes to stderr.
    const worker = startScriptWorker(locateScript('engines/ultimate/virtual/device-thread', import.meta.url), { data, stdout: true });
    worker.stdout.pipe(process.stderr);
    const first = await new Promise<ThreadReply>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the virtual device's thread exited (${code}) before it started`)));
    });
    worker.removeAllListeners('error');
    worker.removeAllListeners('exit');
    if (first.type === 'failed') {
      await worker.terminate();
      const e = first.error;
      if (e.name === 'PortInUseError') throw new PortInUseError(e.role as VirtualServiceRole, e.host ?? '', e.port ?? 0, e.code ?? '');
      throw new Error(e.message);
    }
    if (first.type !== 'started') throw new Error(`the virtual device's thread answered ${first.type} before it started`);
    const thread = new VirtualUltimateThread(worker, credit, first);
    worker.on('error', (e) => onExit?.(`the virtual device failed: ${e.message}`));
    worker.on('exit', (code) => {
      thread.#exited = true;
      if (!thread.#stopped) onExit?.(`the virtual device's thread exited (${code})`);
    });
    return thread;
  }

  #ask<T extends ThreadReply['type']>(request: ThreadRequest, answer: T): Promise<Extract<ThreadReply, { type: T }>> {
    if (this.#exited) return Promise.reject(new Error(`the virtual device's thread is gone (asked ${request.type})`));
    return new Promise((resolve, reject) => {
      const onMessage = (m: ThreadReply) => {
        if (m.type !== answer) return;
        this.#worker.off('message', onMessage);
        this.#worker.off('exit', onExit);
        resolve(m as Extract<ThreadReply, { type: T }>);
      };
      const onExit = () => {
        this.#worker.off('message', onMessage);
        reject(new Error(`the virtual device's thread is gone (asked ${request.type})`));
      };
      this.#worker.on('message', onMessage);
      this.#worker.once('exit', onExit);
      this.#worker.postMessage(request);
    });
  }

  /** Starts the machine's clock (after whoever uses the device is ready). */
  async startClock(): Promise<void> {
    await this.#ask({ type: 'start-clock' }, 'clock-started');
  }

  async stats(): Promise<DeviceThreadStats> {
    const { type: _, ...stats } = await this.#ask({ type: 'stats' }, 'stats');
    return stats;
  }

  /** Stops the clock, closes every server and ends the thread. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.#ask({ type: 'stop' }, 'stopped').catch(() => undefined);
    await this.#worker.terminate();
  }
}
