// The vice target: an emulator speaking the VICE monitors, launched by the service with a
// configurable command (default x64sc) plus `-jamaction 0` and both monitors on free loopback
// ports, driven ONLY through them: AUTOSTART of the PRG written to a private temp file, and the
// run observed by ViceRunObserver (engines/ultimate/vice/run-observer.ts): every $D7FF write with
// its value (from the register the store instruction wrote — in VICE $D7FF is a SID mirror) and
// its cycle from the program's first instruction (the text monitor's clock), BRK, JAM and
// execution outside the code ranges as crashes, markers captured at the stop at their write.
// docs/ultimate/VICE.md says what was measured on x64sc 3.10 and what is exact.
import { type ChildProcess, spawn } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dieWithParent } from '../../../common/index.js';
import { mkdtempOwned } from '../jobs/owned-temp.js';
import { join } from 'node:path';
import {
  CheckpointOp,
  type ObservedWrite,
  ViceMonitorClient,
  ViceRunObserver,
  ViceTextMonitor,
  UltimateError,
} from '../../../engines/ultimate/index.js';
import { CHECKPOINT_ACK_ADDRESS } from './checkpoint-recorder.js';
import {
  type CrashState,
  type DebugRegisterWrite,
  type DebugWait,
  type EndStateMoment,
  HANDOFF,
  type MemoryFill,
  type RamState,
  type RunProtocol,
  type TargetConnection,
  sleep,
} from './connection.js';
import { readHarnessCrash } from './harness-crash.js';
import { brkIsCrash, prgCoversCpuVector } from './brk-policy.js';
import { prgLoadRange } from './program-start.js';

export interface ViceLaunchOptions {
  /**
   * argv of the emulator; the service appends `-jamaction 0 -binarymonitor -binarymonitoraddress
   * ip4://127.0.0.1:PORT -remotemonitor -remotemonitoraddress ip4://127.0.0.1:PORT2`.
   */
  command: string[];
  /** How long the emulator may take to accept monitor connections (default 20 s). */
  startTimeoutMs?: number;
  emulation: boolean;
}

/**
 * Code that is not the artifact's but runs legitimately in a C64 program's run, the same on every
 * target (outside-code.ts): the BASIC and KERNAL ROMs (the IRQ handler, CHROUT…; an exec checkpoint
 * cannot tell ROM from the RAM under it) and the zero and stack pages (CHRGET lives at $0073; the
 * Ultimate's bus trace cannot tell an opcode fetch there from a pointer read or a pull). Execution
 * outside the declared ranges means outside these too.
 */
export const SYSTEM_CODE_RANGES: ReadonlyArray<{ start: number; end: number }> = [
  { start: 0x0000, end: 0x01ff },
  { start: 0xa000, end: 0xbfff },
  { start: 0xe000, end: 0xffff },
];

/** The real KERNAL's keyboard wait (901227-03 $E5CD: LDA $C6), where BASIC sits at READY. */
const KERNAL_WAIT_KEY = 0xe5cd;

/** How the vice target's cycles are obtained (DebugWait.cycleSource). */
export const VICE_CYCLE_SOURCE = 'vice-monitor-clock';

/** Words for the moment the observer stopped the machine. */
function endMomentOf(r: { outcome: string }, end: { verdict: string; value: number } | { crash: CrashState } | undefined): string {
  switch (r.outcome) {
    case 'ended':
      return end && 'value' in end
        ? `the write of $${end.value.toString(16).toUpperCase().padStart(2, '0')} to $D7FF that ended the run`
        : 'the harness crash hand-off';
    case 'crashed':
      return 'the crash';
    case 'over_budget':
      return 'the first clock read past budget.cycles';
    case 'halted':
      return 'the JAM that halted the CPU';
    default:
      return 'the end of the time budget';
  }
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const addr = s.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/**
 * The emulator's command with the two settings every run needs, unless the command names them:
 * - `+autostart-delay-random`: x64sc delays AUTOSTART by a random number of frames by default
 *   (its AutostartDelayRandom resource is 1), so a program started at a different raster position
 *   each run and the same test counted different cycles; a run repeated must be the same run.
 * - `-autostartprgmode 1`: x64sc's default PRG autostart (mode 2) writes the program to ONE disk
 *   image for every instance, ~/.cache/vice/autostart-C64SC.d64, so two instances starting
 *   programs at once overwrote each other's: AUTOSTART failed with $8F ("Error creating autostart
 *   disk image", measured: 3 of 60 pairs) or started nothing. Mode 1 injects the PRG into RAM, as
 *   VICE's own testbench runs x64sc; no file is shared.
 */
export function withRunDefaults(command: readonly string[]): string[] {
  const out = [...command];
  if (!command.some((a) => /^[-+]autostart-delay-random$/.test(a))) out.push('+autostart-delay-random');
  if (!command.includes('-autostartprgmode')) out.push('-autostartprgmode', '1');
  return out;
}

/** The REU size of an x64sc command line: `-reu` with `-reusize KB` (VICE's default size, 512 KiB, without it); 0 without `-reu`. */
export function reuKbOf(command: readonly string[]): number {
  if (!command.includes('-reu')) return 0;
  const i = command.indexOf('-reusize');
  const kb = i >= 0 ? Number(command[i + 1]) : 512;
  return Number.isInteger(kb) && kb > 0 ? kb : 512;
}

export class ViceConnection implements TargetConnection {
  deviceMs = 0;
  readonly identity: Record<string, unknown>;
  readonly #observer: ViceRunObserver;
  #fill: MemoryFill[] = [];
  #prg: Uint8Array = new Uint8Array();
  /** The REU the instance was started with (`-reu -reusize KB`), 0 without one. */
  readonly #reuKb: number;

  private constructor(
    readonly emulation: boolean,
    readonly client: ViceMonitorClient,
    readonly text: ViceTextMonitor,
    readonly child: ChildProcess,
    readonly tmp: string,
    command: string[],
  ) {
    this.identity = { emulator: command[0] ?? '', command, protocol: 'VICE binary monitor API 2 + text monitor' };
    this.#reuKb = reuKbOf(command);
    this.#observer = new ViceRunObserver(client, text);
  }

  static async launch(opts: ViceLaunchOptions): Promise<ViceConnection> {
    const port = await freePort();
    const textPort = await freePort();
    const command = withRunDefaults(opts.command);
    const [cmd, ...args] = command as [string, ...string[]];
    // -jamaction 0 ("ask"): with a monitor connected, a JAM opens the monitor (x64sc 3.10's
    // default under -default does not).
    const monitors = [
      '-jamaction',
      '0',
      '-binarymonitor',
      '-binarymonitoraddress',
      `ip4://127.0.0.1:${port}`,
      '-remotemonitor',
      '-remotemonitoraddress',
      `ip4://127.0.0.1:${textPort}`,
    ];
    // Killed with the service, however the service ends (common/die-with-parent.ts): a pool of
    // x64sc outlived a `serve` killed with SIGKILL (die-with-parent.test.ts).
    const [exe, ...argv] = dieWithParent([cmd, ...args, ...monitors]);
    const child = spawn(exe, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
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
    const tmp = await mkdtempOwned('ultimate-vice-');
    for (;;) {
      if (exited) {
        await rm(tmp, { recursive: true, force: true });
        throw new Error(`the emulator ${JSON.stringify(opts.command)} ${exited}${stderr ? `: ${stderr.trim()}` : ''}`);
      }
      let client: ViceMonitorClient | undefined;
      try {
        client = await ViceMonitorClient.connect({ host: '127.0.0.1', port, timeoutMs: 10_000 });
        const text = await ViceTextMonitor.connect({ host: '127.0.0.1', port: textPort, timeoutMs: 10_000 });
        return new ViceConnection(opts.emulation, client, text, child, tmp, command);
      } catch (e) {
        client?.close();
        if (performance.now() > deadline) {
          child.kill('SIGKILL');
          await rm(tmp, { recursive: true, force: true });
          throw new Error(`the emulator did not open its monitors on 127.0.0.1:${port} and :${textPort} in time: ${(e as Error).message}`);
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

  async start(prg: Uint8Array, prepare?: { fill: MemoryFill[]; sys?: number }): Promise<void> {
    const file = join(this.tmp, 'program.prg');
    await writeFile(file, prg);
    if (prgLoadRange(prg) === null) throw new Error(`the PRG of ${prg.length} bytes has no load address and code`);
    this.#prg = prg;
    await this.#timed(async () => {
      // x64sc's AUTOSTART powers the machine up again, RAM pattern included (measured: a fill made
      // before it was gone), so the fill is made at the start stop, before the program's first instruction.
      this.#fill = prepare?.fill ?? [];
      await this.#observer.armStart(prgLoadRange(prg)!);
      if (prepare?.sys === undefined) await this.#autostart(file);
      else await this.#loadAndSys(prg, prepare.sys);
    });
  }

  /**
   * AUTOSTART. x64sc answers $8F when it could not start the file; the one cause seen here was its
   * shared autostart disk image (vice-pool.ts starts instances with -autostartprgmode 1), so the
   * error names it rather than retrying.
   */
  async #autostart(file: string): Promise<void> {
    try {
      await this.client.autostart(file, { run: true });
    } catch (e) {
      if (!(e instanceof UltimateError && e.code === 0x8f)) throw e;
      throw new UltimateError(
        'vice',
        `x64sc refused to AUTOSTART the PRG (monitor error $8F): its log names the cause; with -autostartprgmode 0 or 2 ` +
          'parallel x64sc instances share one autostart disk image, so the pool starts them with -autostartprgmode 1',
        { cause: e, code: 0x8f },
      );
    }
  }

  /**
   * start.sys, as the Ultimate's load_prg does it: a hard reset (x64sc powers the RAM up again), the
   * machine run to READY (the KERNAL's keyboard wait at $E5CD), the PRG written at its load address
   * with BASIC's end pointers set as LOAD leaves them, then `SYS address` and RETURN in the keyboard
   * buffer (count last). The start checkpoint armed before stays armed.
   */
  async #loadAndSys(prg: Uint8Array, sys: number): Promise<void> {
    const ready = (await this.client.checkpointSet({ start: KERNAL_WAIT_KEY, op: CheckpointOp.exec, stop: true })).number;
    try {
      await this.client.reset(1);
      await this.client.resume();
      const hit = await this.text.nextBlock(performance.now() + 30_000, (b) => b.hits.some((h) => h.number === ready));
      if (!hit) throw new Error('x64sc did not reach READY within 30 s after its reset');
    } finally {
      await this.client.checkpointDelete(ready).catch(() => undefined);
    }
    const load = (prg[0] ?? 0) | ((prg[1] ?? 0) << 8);
    const data = prg.subarray(2, 2 + (0x10000 - load));
    await this.client.memorySet(load, data);
    const end = load + data.length;
    for (const zp of [0x2d, 0x2f, 0x31, 0xae]) await this.client.memorySet(zp, Uint8Array.of(end & 0xff, (end >> 8) & 0xff));
    const keys = Uint8Array.from([...`SYS${sys}`].map((c) => c.charCodeAt(0)).concat(0x0d));
    await this.client.memorySet(0x0277, keys);
    await this.client.memorySet(0x00c6, Uint8Array.of(keys.length));
    await this.client.resume();
  }

  ramState(): RamState {
    return {
      pattern: 'x64sc-power-on',
      filled: [{ start: '$0000', end: '$FFFF' }],
      how: "x64sc's autostart powers the machine up again: all RAM holds its power-on pattern before the KERNAL's reset",
      ...(this.#reuKb > 0
        ? {
            reu: {
              pattern: '17xx-power-on' as const,
              size_kb: this.#reuKb,
              how: 'every run has a fresh x64sc instance, whose REU powers up with the pattern',
            },
          }
        : {}),
    };
  }

  async waitDebugResult(deadline: number, protocol: RunProtocol): Promise<DebugWait> {
    const writes: DebugRegisterWrite[] = [];
    let cyclesExact = true;
    let end: { verdict: 'pass' | 'fail'; value: number } | { crash: CrashState } | undefined;
    const onWrite = async (w: ObservedWrite): Promise<boolean> => {
      if (w.cycle === null) cyclesExact = false;
      writes.push({ value: w.value, cycle: w.cycle ?? 0 });
      const verdict = protocol.classify(w.value);
      if (verdict === 'crash') {
        // The harness hand-off: its context at $0340 (the machine stands at the write).
        end = { crash: await readHarnessCrash((a, n) => this.client.memoryGet(a, a + n - 1), w.cycle) };
        return true;
      }
      if (verdict) {
        end = { verdict, value: w.value };
        return true;
      }
      const checkpoints = protocol.checkpoints;
      const point = checkpoints?.pointFor(w.value);
      if (point && checkpoints) {
        // The machine stands right after the marker write: the point's memory as it is there.
        const bytes: Uint8Array[] = [];
        for (const r of point.ranges) bytes.push(await this.client.memoryGet(r.address, r.address + r.length - 1));
        checkpoints.record(point, bytes);
        if (checkpoints.handshake) {
          await this.client.memorySet(CHECKPOINT_ACK_ADDRESS, Uint8Array.of(point.marker));
          checkpoints.acknowledgements++;
        }
      }
      return false;
    };
    const cpuVectorInPrg = prgCoversCpuVector(this.#prg);
    const policy = protocol.crash;
    const result = await this.#timed(() =>
      this.#observer.observe({
        watch: HANDOFF.debugRegister,
        ...(policy.brk === 'never'
          ? {}
          : {
              brkIsCrash: (f) =>
                brkIsCrash(policy.brk, {
                  vector: f.vector,
                  brkVector: f.brkVector,
                  cpuVectorSetByProgram: f.ramVectorChanged || cpuVectorInPrg,
                }),
            }),
        jamIsCrash: policy.jam,
        codeRanges: policy.outsideCode.length ? [...policy.outsideCode, ...SYSTEM_CODE_RANGES] : [],
        ...(protocol.cycleBudget !== undefined ? { cycleBudget: protocol.cycleBudget } : {}),
        deadline,
        atEntry: async () => {
          for (const f of this.#fill) await this.client.memorySet(f.address, new Uint8Array(f.length).fill(f.byte));
        },
        onWrite,
      }),
    );
    if (!result.startExact) cyclesExact = false;
    // The machine stands where the observer stopped it: memory read now is the end state.
    const stopped = result.outcome !== 'timeout';
    const endState: EndStateMoment = {
      cycle: cyclesExact ? result.stoppedAt : null,
      at: endMomentOf(result, end),
      exact: stopped,
      how: stopped
        ? 'read through the monitor with the machine stopped there'
        : 'read through the monitor after the time budget ran out (the machine stopped then)',
    };
    const base = {
      writes,
      writesExact: true,
      cycleSource: cyclesExact ? VICE_CYCLE_SOURCE : null,
      endState,
      ...(result.start ? { programStart: result.start } : {}),
    };
    if (result.outcome === 'crashed') {
      const c = result.crash;
      return { ...base, outcome: 'crashed', crash: { ...c, cycle: cyclesExact ? c.cycle : null } };
    }
    if (result.outcome === 'over_budget') return { ...base, outcome: 'over_budget', cycle: result.cycle };
    if (result.outcome === 'halted')
      return { ...base, outcome: 'timeout', started: true, halted: { pc: result.pc, cycle: cyclesExact ? result.cycle : null } };
    if (result.outcome === 'timeout') return { ...base, outcome: 'timeout', started: result.started };
    if (end === undefined) return { ...base, outcome: 'timeout', started: true };
    if ('crash' in end) return { ...base, outcome: 'crashed', crash: end.crash };
    return { ...base, outcome: 'ended', verdict: end.verdict, value: end.value };
  }

  async readMemory(address: number, length: number): Promise<Uint8Array> {
    return this.#timed(() => this.client.memoryGet(address, address + length - 1));
  }

  async pollMemory(address: number, length: number, deadline: number, done: (b: Uint8Array) => boolean): Promise<Uint8Array> {
    // Observed by the screen: nothing waits for the start stop, so the start checkpoint goes (left
    // armed it would stop every instruction inside the load range).
    await this.#timed(() => this.#observer.finish());
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
    this.text.close();
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
