// The vice target: an emulator speaking the VICE binary monitor, launched by the service with a
// configurable command (default x64sc), driven ONLY through the monitor protocol
// (ViceMonitorClient): AUTOSTART of the PRG written to a private temp file, a store checkpoint on
// $D7FF to see the harness's result (the value is read from its RAM mirror, because in VICE $D7FF
// is a SID mirror), memory reads for observation.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointOp } from '../../vice/protocol.js';
import { ViceMonitorClient, type ViceEvent } from '../../vice/client.js';
import type { CheckpointPointSpec } from '../manifest.js';
import { CHECKPOINT_ACK_ADDRESS, type CheckpointRecorder } from './checkpoint-recorder.js';
import {
  type DebugRegisterWrite,
  type DebugWait,
  HANDOFF,
  type MemoryFill,
  type RunProtocol,
  type TargetConnection,
  sleep,
} from './connection.js';
import { readHarnessCrash, readPages } from './harness-crash.js';

export interface ViceLaunchOptions {
  /** argv of the emulator; the service appends `-binarymonitor -binarymonitoraddress ip4://127.0.0.1:PORT`. */
  command: string[];
  /** How long the emulator may take to accept monitor connections (default 20 s). */
  startTimeoutMs?: number;
  emulation: boolean;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const addr = s.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export class ViceConnection implements TargetConnection {
  deviceMs = 0;
  readonly identity: Record<string, unknown>;
  readonly #events: ViceEvent[] = [];
  #wake?: () => void;

  private constructor(
    readonly emulation: boolean,
    readonly client: ViceMonitorClient,
    readonly child: ChildProcess,
    readonly tmp: string,
    command: string[],
  ) {
    this.identity = { emulator: command[0] ?? '', command, protocol: 'VICE binary monitor API 2' };
    client.on('event', (e) => {
      this.#events.push(e);
      this.#wake?.();
    });
  }

  static async launch(opts: ViceLaunchOptions): Promise<ViceConnection> {
    const port = await freePort();
    const [cmd, ...args] = opts.command as [string, ...string[]];
    const child = spawn(cmd, [...args, '-binarymonitor', '-binarymonitoraddress', `ip4://127.0.0.1:${port}`], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (b: Buffer) => {
      if (stderr.length < 4096) stderr += b.toString('utf8');
    });
    let exited: string | undefined;
    child.once('exit', (code, signal) => {
      exited = `exited with ${code ?? signal}`;
    });
    child.once('error', (e) => {
      exited = `could not start: ${e.message}`;
    });
    const deadline = performance.now() + (opts.startTimeoutMs ?? 20_000);
    const tmp = await mkdtemp(join(tmpdir(), 'ultimate-vice-'));
    for (;;) {
      if (exited) {
        await rm(tmp, { recursive: true, force: true });
        throw new Error(`the emulator ${JSON.stringify(opts.command)} ${exited}${stderr ? `: ${stderr.trim()}` : ''}`);
      }
      try {
        const client = await ViceMonitorClient.connect({ host: '127.0.0.1', port, timeoutMs: 10_000 });
        return new ViceConnection(opts.emulation, client, child, tmp, opts.command);
      } catch (e) {
        if (performance.now() > deadline) {
          child.kill('SIGKILL');
          await rm(tmp, { recursive: true, force: true });
          throw new Error(`the emulator did not open its binary monitor on 127.0.0.1:${port} in time: ${(e as Error).message}`);
        }
        await sleep(50);
      }
    }
  }

  async #timed<T>(fn: () => Promise<T>): Promise<T> {
    const t = performance.now();
    try {
      return await fn();
    } finally {
      this.deviceMs += performance.now() - t;
    }
  }

  async start(prg: Uint8Array, prepare?: { fill: MemoryFill[] }): Promise<void> {
    const file = join(this.tmp, 'program.prg');
    await writeFile(file, prg);
    await this.#timed(async () => {
      // RAM survives the reset of AUTOSTART, so a fill made now is there when the program starts.
      for (const f of prepare?.fill ?? []) await this.client.memorySet(f.address, new Uint8Array(f.length).fill(f.byte));
      await this.client.checkpointSet({ start: HANDOFF.debugRegister, op: CheckpointOp.store, stop: true });
      this.#events.length = 0;
      await this.client.autostart(file, { run: true });
    });
  }

  #nextEvent(deadline: number): Promise<ViceEvent | undefined> {
    return new Promise((resolve) => {
      const take = () => {
        const e = this.#events.shift();
        if (e) {
          clearTimeout(timer);
          this.#wake = undefined;
          resolve(e);
          return true;
        }
        return false;
      };
      const timer = setTimeout(
        () => {
          this.#wake = undefined;
          resolve(undefined);
        },
        Math.max(0, deadline - performance.now()),
      );
      if (!take()) this.#wake = () => void take();
    });
  }

  async waitDebugResult(deadline: number, protocol: RunProtocol): Promise<DebugWait> {
    // The value is read from the harness's $03FF mirror (in VICE $D7FF is a SID mirror); no cycles.
    const writes: DebugRegisterWrite[] = [];
    const base = { writes, writesExact: true, cycleSource: null };
    const read = (a: number, n: number) => this.readMemory(a, n);
    for (;;) {
      const t = performance.now();
      const e = await this.#nextEvent(deadline);
      this.deviceMs += performance.now() - t;
      if (!e) return { ...base, outcome: 'timeout' };
      if (e.type === 'jam') {
        const { stack, zeroPage } = await readPages(read);
        return {
          ...base,
          outcome: 'crashed',
          crash: { kind: 'jam', pc: e.pc, a: 0, x: 0, y: 0, sp: 0, p: 0, stack, zeroPage, cycle: null },
        };
      }
      if (e.type !== 'stopped') continue;
      const [value = 0] = await this.#timed(() => this.client.memoryGet(HANDOFF.resultMirror, HANDOFF.resultMirror));
      writes.push({ value, cycle: 0 });
      const verdict = protocol.classify(value);
      if (verdict === 'crash') return { ...base, outcome: 'crashed', crash: await readHarnessCrash(read, null) };
      if (verdict) return { ...base, outcome: 'ended', verdict, value };
      const checkpoints = protocol.checkpoints;
      const point = checkpoints?.pointFor(value);
      if (point && checkpoints) {
        await this.#timed(() => this.#checkpointEpisode(point, checkpoints));
        continue;
      }
      await this.#timed(() => this.client.resume());
    }
  }

  /**
   * One pause episode: the store checkpoint on $D7FF has stopped the CPU right after the marker
   * store; read every range (MEMORY_GET), write the acknowledgement (one MEMORY_SET), resume once
   * (EXIT). A failure is not retried: the run ends as an error.
   */
  async #checkpointEpisode(point: CheckpointPointSpec, checkpoints: CheckpointRecorder): Promise<void> {
    const bytes: Uint8Array[] = [];
    for (const r of point.ranges) bytes.push(await this.client.memoryGet(r.address, r.address + r.length - 1));
    checkpoints.record(point, bytes);
    await this.client.memorySet(CHECKPOINT_ACK_ADDRESS, Uint8Array.of(point.marker));
    checkpoints.acknowledgements++;
    await this.client.resume();
  }

  async readMemory(address: number, length: number): Promise<Uint8Array> {
    return this.#timed(() => this.client.memoryGet(address, address + length - 1));
  }

  async pollMemory(address: number, length: number, deadline: number, done: (b: Uint8Array) => boolean): Promise<Uint8Array> {
    for (;;) {
      const bytes = await this.readMemory(address, length);
      if (done(bytes) || performance.now() >= deadline) return bytes;
      // Every monitor command stops the emulation; let it run between polls.
      await this.#timed(() => this.client.resume());
      await this.#timed(() => sleep(Math.min(100, Math.max(0, deadline - performance.now()))));
    }
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => undefined);
    this.client.removeAllListeners('event');
    this.client.close();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const gone = new Promise<void>((r) => this.child.once('exit', () => r()));
      this.child.kill('SIGTERM');
      const t = setTimeout(() => this.child.kill('SIGKILL'), 3000);
      await gone;
      clearTimeout(t);
    }
    await rm(this.tmp, { recursive: true, force: true });
  }
}
