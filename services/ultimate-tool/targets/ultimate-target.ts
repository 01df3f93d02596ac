// The ultimate target: an Ultimate 64 / Ultimate-II+ (or the virtual one) through UltimateDevice.
// With a debug-stream receiver (always on the virtual device; on hardware when one is configured)
// the run is observed from the bus trace: every $D7FF write with its cycle, BRK and JAM crashes,
// markers reconstructed at their exact write (bus-trace-observer.ts). Without one, the debug
// register is polled over REST, and the run says writes may have been missed.
// Mutations (debug-register clear, REU image write, run_prg) are never retried: a repeated reset
// would exceed the confirmed count. Reads (debug register, memory) are retried up to twice on a
// transport or 5xx failure — unless strict_gate is on, which fails closed on the first error.
import type { StreamCredit, UltimateDevice } from '../../../engines/ultimate/index.js';
import { UltimateError } from '../../../engines/ultimate/index.js';
import type { CheckpointPointSpec } from '../project/manifest.js';
import { CHECKPOINT_ACK_ADDRESS, type CheckpointRecorder } from './checkpoint-recorder.js';
import {
  type CrashState,
  type DebugRegisterWrite,
  type DebugWait,
  type EndStateMoment,
  type InstalledCrashHook,
  type MemoryFill,
  type RamState,
  type RunProtocol,
  type TargetConnection,
  sleep,
} from './connection.js';
import { CRASH_HOOK, crashHookCode, crashHookFootprint, crashHookSignal, prgOverlapsHook } from './crash-hook.js';
import { readHarnessCrash, readPages } from './harness-crash.js';
import { BusTraceObserver, type MarkerEvent } from './bus-trace-observer.js';
import { DebugStreamReceiver } from './debug-stream-receiver.js';
import { waitOfTraceEnd } from './trace-end.js';
import type { MachineSpec } from '../project/manifest.js';
import {
  type MachineItem,
  MachineOptionError,
  type MachineRecord,
  VIRTUAL_MACHINE_CATEGORY,
  fullMachine,
  itemsBody,
  ultimateMachineItems,
} from './machine-options.js';
import { prgLoadRange } from './program-start.js';
import { dramPowerOnPattern, fillPowerOnPattern } from '../../../engines/ultimate/virtual/index.js';
import { addressHex } from '../api/address-syntax.js';

/** Two entries per clock (the VIC's half and the CPU's): clocks are counted exactly, stolen ones too. */
export const JUDGE_STREAM_MODE = '6510 & VIC';
/** Memory known at the start for reconstruction: all RAM below the I/O area. */
const SNAPSHOT = { address: 0x0000, length: 0xd000 } as const;

/**
 * The RAM the tool fills with x64sc's power-on pattern before every run (both ends inclusive): all
 * of it but the processor port ($00/$01: a DMA write there would bank the machine) and the I/O
 * area ($D000-$DFFF: a DMA write there reaches the chips, not the RAM under them).
 */
export const RAM_PATTERN_RANGES: ReadonlyArray<{ start: number; end: number }> = [
  { start: 0x0002, end: 0xcfff },
  { start: 0xe000, end: 0xffff },
];
/** DMA writes of the pattern, per request. */
const PATTERN_CHUNK = 0x1000;

/** The trace's memory is the RAM below the I/O area (the snapshot's range): reads of it at the end come from there. */
const TRACED_END = 0xd000;

/** Words for the moment a traced run ended. */
function endMomentOf(end: NonNullable<BusTraceObserver['end']>): string {
  const h = (n: number) => `$${n.toString(16).toUpperCase().padStart(2, '0')}`;
  switch (end.outcome) {
    case 'ended':
      return `the write of ${h(end.value)} to $D7FF that ended the run`;
    case 'crashed':
      return `the ${end.crash.kind} crash`;
    case 'over_budget':
      return 'the first cycle past budget.cycles';
    case 'halted':
      return 'the JAM that halted the CPU';
    default:
      return 'the harness crash hand-off';
  }
}

const READ_RETRIES = 2;
const POLL_MS = 15;

function retryable(e: unknown): boolean {
  if (!(e instanceof UltimateError)) return false;
  if (e.kind === 'network' || e.kind === 'timeout') return true;
  return typeof e.status === 'number' && e.status >= 500;
}

/**
 * The debug register's value while a polled run has not written it: $00 when $00 ends nothing (the
 * harness convention), otherwise the highest value the protocol does not end the run with (with a
 * `$00` pass / `$FF` fail verdict: $FE). A program writing that very value as a marker is missed —
 * polling says writes may be missed — but no verdict value is.
 */
export function pollingIdleValue(protocol: Pick<RunProtocol, 'classify'>): number {
  if (protocol.classify(0) === null) return 0;
  for (let v = 0xff; v > 0; v--) if (protocol.classify(v) === null) return v;
  return 0;
}

export interface UltimateConnectionOptions {
  device: UltimateDevice;
  identity: Record<string, unknown>;
  emulation: boolean;
  strictGate: boolean;
  /** Called for every request that failed and was retried (for the run's observations). */
  onRetry?: (what: string, error: string) => void;
  /** The IPv4 address of this machine the device streams to; null/absent: REST polling. */
  debugStreamReceiver?: string | null;
  /** How fast the device runs, for the run record: a virtual device's pace, or 'hardware'. */
  speed?: MachineRecord['speed'];
  /** A virtual device on another thread paces its stream to this connection's receiver (stream-credit.ts). */
  streamCredit?: StreamCredit;
}

export class UltimateConnection implements TargetConnection {
  deviceMs = 0;
  readonly identity: Record<string, unknown>;
  readonly emulation: boolean;
  readonly #device: UltimateDevice;
  readonly #strict: boolean;
  readonly #onRetry?: (what: string, error: string) => void;
  readonly #receiverAddress: string | null;
  readonly #streamCredit?: StreamCredit;
  #receiver: DebugStreamReceiver | null = null;
  #streaming = false;
  #prg: Uint8Array = new Uint8Array();
  #snapshot: Array<{ address: number; bytes: Uint8Array }> = [];
  /** start() left the reset/load/run to waitDebugResult (a receiver is configured). */
  #pendingStart = false;
  /** start.sys: load, then type SYS address (a PRG not loading at $0801). */
  #sys: number | undefined;
  /** The REU size the last configureMachine asked for (0: none, or not named on hardware). */
  #reuKb = 0;
  /** Memory as the trace reconstructed it at the run's end ($0000-$CFFF); null: read the machine. */
  #endMemory: ((address: number, length: number) => Uint8Array) | null = null;

  readonly #speed: MachineRecord['speed'];

  constructor(o: UltimateConnectionOptions) {
    this.#speed = o.speed ?? (o.emulation ? 'real-time' : 'hardware');
    this.#receiverAddress = o.debugStreamReceiver ?? null;
    this.#streamCredit = o.streamCredit;
    this.#device = o.device;
    this.identity = o.identity;
    this.emulation = o.emulation;
    this.#strict = o.strictGate;
    this.#onRetry = o.onRetry;
  }

  async #timed<T>(fn: () => Promise<T>): Promise<T> {
    const t = performance.now();
    try {
      return await fn();
    } finally {
      this.deviceMs += performance.now() - t;
    }
  }

  async #read<T>(what: string, fn: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#timed(fn);
      } catch (e) {
        if (this.#strict || attempt >= READ_RETRIES || !retryable(e)) throw e;
        this.#onRetry?.(what, (e as Error).message);
      }
    }
  }

  /**
   * Configures the machine of the next run, before anything else touches the device. A device
   * that offers the virtual items (an emulation) is configured whole for every run — every option,
   * the defaults included, and a reset that powers the C64 on again — so no earlier run's machine
   * or RAM stays. On hardware only the options the test asks for are set, each through the
   * firmware's own item; an option the device has no item or value for is refused (MachineOptionError,
   * naming it) after reading its configuration and before anything is written.
   */
  async configureMachine(machine: MachineSpec | undefined): Promise<MachineRecord> {
    const rest = this.#device.rest;
    const offered = async (i: MachineItem): Promise<string[] | null> => {
      const answer = (await this.#read(`GET /v1/configs/${i.category}/${i.item}`, () => rest.configItem(i.category, i.item))) as Record<
        string,
        unknown
      >;
      const cat = Object.entries(answer).find(([k]) => k.toLowerCase() === i.category.toLowerCase())?.[1] as
        | Record<string, { values?: unknown }>
        | undefined;
      const item = cat ? Object.entries(cat).find(([k]) => k.toLowerCase() === i.item.toLowerCase())?.[1] : undefined;
      if (!item) return null;
      return Array.isArray(item.values) ? item.values.map(String) : [];
    };
    const categories = await this.#read('GET /v1/configs', () => rest.configCategories());
    const complete = categories.some((c) => c.toLowerCase() === VIRTUAL_MACHINE_CATEGORY.toLowerCase());
    const items = ultimateMachineItems(machine, complete);
    const have = new Set(categories.map((c) => c.toLowerCase()));
    for (const i of items) {
      const option = i.option === 'reset' ? 'cia_model' : i.option;
      const values = have.has(i.category.toLowerCase()) ? await offered(i) : null;
      if (values === null)
        throw new MachineOptionError(
          option,
          `this device's configuration has no item "${i.category}" / "${i.item}" to set ${JSON.stringify(machine?.[option] ?? i.value)} with; nothing was changed on the device`,
        );
      if (values.length && !values.some((v) => v.toLowerCase() === i.value.toLowerCase()))
        throw new MachineOptionError(
          option,
          `this device's "${i.category}" / "${i.item}" offers ${values.map((v) => JSON.stringify(v)).join(', ')}, not ${JSON.stringify(i.value)}; nothing was changed on the device`,
        );
    }
    // Set once every item is known to be offered: a refusal above has changed nothing.
    const body = itemsBody(items);
    if (items.length) await this.#timed(() => rest.setConfigs(body));
    // The REU's memory is the Ultimate's own and outlives every reset: on the emulation it gets the
    // 17xx power-on pattern x64sc gives a fresh REU, over the size the run asks for (a test's REU
    // image after it). Not on hardware: the contract lets the tool write a device's REU only for a
    // declared REU image, with its confirmed count; there the record says the REU was left as it was.
    this.#reuKb = machine?.reu_kb ?? 0;
    if (this.#reuKb > 0 && this.emulation) {
      const pattern = dramPowerOnPattern(this.#reuKb * 1024);
      await this.#timed(() => this.#device.writeReu(pattern, 0));
    }
    if (complete) return { ...fullMachine(machine), applied_as: body, speed: this.#speed };
    return {
      ...machine,
      applied_as: body,
      speed: this.#speed,
      notes: ["the options the test does not name are the device's own configuration"],
    };
  }

  async writeReu(image: Uint8Array): Promise<void> {
    await this.#timed(() => this.#device.writeReu(image, 0));
  }

  /**
   * Puts RAM in the documented state (x64sc's power-on pattern, RAM_PATTERN_RANGES), then the
   * test's prepare.fill. With a debug-stream receiver the reset, load and start wait for the run's
   * protocol (waitDebugResult): only a run that needs exact observation streams, and the stream and
   * the memory snapshot must come before the program starts. Without one the program starts now.
   */
  async start(prg: Uint8Array, prepare?: { fill: MemoryFill[]; sys?: number }): Promise<void> {
    await this.#timed(async () => {
      // RAM survives the reset of run_prg, so what is written now is there when the program starts
      // (the KERNAL's reset clears its own pages, on every target alike).
      // Paused first: the machine still runs the previous program, and the pattern overwrites its
      // code and stack while it runs; between the fill and the reset it would execute what the
      // pattern left and could write anywhere (a virtual device on its own core runs millions of
      // clocks in that time: $7F appeared at $C100). A paused machine stays paused through the
      // DMA writes and runs again at run_prg's or load_prg's reset (the firmware's dma_load starts
      // the boot cartridge), so nothing runs between the fill and the program.
      await this.#device.rest.pause();
      const pattern = new Uint8Array(0x10000);
      fillPowerOnPattern(pattern);
      for (const r of RAM_PATTERN_RANGES)
        for (let a = r.start; a <= r.end; a += PATTERN_CHUNK) {
          const end = Math.min(r.end + 1, a + PATTERN_CHUNK);
          await this.#device.rest.writeMemory(a, pattern.subarray(a, end));
        }
      for (const f of prepare?.fill ?? []) await this.#device.rest.writeMemory(f.address, new Uint8Array(f.length).fill(f.byte));
      this.#prg = prg;
      this.#sys = prepare?.sys;
      this.#endMemory = null;
      // Started by waitDebugResult (which knows the run's protocol) or by the first readMemory.
      this.#pendingStart = true;
    });
  }

  ramState(): RamState {
    return {
      pattern: 'x64sc-power-on',
      filled: RAM_PATTERN_RANGES.map((r) => ({ start: addressHex(r.start), end: addressHex(r.end) })),
      how: 'written by DMA before the reset (no power cycle on the device); $00/$01 and the RAM under $D000-$DFFF are left as they were',
      ...(this.#reuKb > 0 ? { reu: { size_kb: this.#reuKb, ...this.#reuFill() } } : {}),
    };
  }

  /** What configureMachine did to the REU's memory (written only on the emulation). */
  #reuFill(): { pattern: '17xx-power-on' | 'as-left'; how: string } {
    return this.emulation
      ? {
          pattern: '17xx-power-on',
          how: 'written through the DMA port (REU write, FF07) before the run: the device keeps its REU memory across resets',
        }
      : {
          pattern: 'as-left',
          how: 'not written: on hardware the tool writes the REU only for a declared REU image, with confirmed_reu_write_count; it holds what earlier runs left',
        };
  }

  /** `idle`: the debug register's value before the program writes it (polling waits for a change). */
  async #runPrg(idle = 0): Promise<void> {
    this.#pendingStart = false;
    const rest = this.#device.rest;
    if (idle === 0 && this.#sys === undefined) {
      // The reset of run_prg sets the debug register to $00 — the idle value here, and on a
      // stream every write is in the trace anyway: run_prg (reset, load, RUN) in one request.
      await rest.setDebugRegister(0);
      await this.#device.runPrg({ bytes: this.#prg });
      return;
    }
    // Another idle value (a verdict that makes $00 a pass) or start.sys: load_prg (reset + DMA
    // load, READY), the idle value, then RUN or SYS through the keyboard buffer. Written before the
    // reset, the idle value would be gone ($00), and a poll that came before the program's first
    // write would read a pass the program never gave. Written at READY, it holds until the program writes.
    await rest.loadPrg({ bytes: this.#prg });
    await rest.setDebugRegister(idle);
    await this.#typeCommand(this.#sys === undefined ? 'RUN' : `SYS${this.#sys}`);
  }

  /** Types a BASIC command and RETURN through the keyboard buffer (count last, so the KERNAL never reads a half-written buffer). */
  async #typeCommand(text: string): Promise<void> {
    const keys = Uint8Array.from([...text].map((c) => c.charCodeAt(0)).concat(0x0d));
    await this.#device.rest.writeMemory(CRASH_HOOK.keyboardBuffer, keys);
    await this.#device.rest.writeMemory(CRASH_HOOK.keyboardCount, Uint8Array.of(keys.length));
  }

  /**
   * load_prg (reset + DMA load, the machine at READY with the KERNAL's vectors set), then the crash
   * hook and the BRK vector by DMA, then RUN (or SYS) through the keyboard buffer — what run_prg
   * does, with the hook in between.
   */
  async #runPrgWithHook(idle: number, signal: number): Promise<InstalledCrashHook> {
    this.#pendingStart = false;
    const rest = this.#device.rest;
    await rest.loadPrg({ bytes: this.#prg });
    // After the reset, which sets the register to $00 (see #runPrg).
    await rest.setDebugRegister(idle);
    await rest.writeMemory(CRASH_HOOK.block, new Uint8Array(CRASH_HOOK.blockBytes));
    await rest.writeMemory(CRASH_HOOK.handler, crashHookCode(signal));
    await rest.writeMemory(CRASH_HOOK.brkVector, Uint8Array.of(CRASH_HOOK.handler & 0xff, CRASH_HOOK.handler >> 8));
    await this.#typeCommand(this.#sys === undefined ? 'RUN' : `SYS${this.#sys}`);
    return { footprint: crashHookFootprint(signal), block: CRASH_HOOK.block, signal, vector: CRASH_HOOK.brkVector };
  }

  /** The hook's block read back; null when it holds no "CR" (the program wrote the signal value itself). */
  async #readHookCrash(hook: InstalledCrashHook): Promise<CrashState | null> {
    const read = (a: number, n: number) => this.readMemory(a, n);
    const area = await read(hook.block, CRASH_HOOK.blockBytes);
    if (area[0] !== 0x43 || area[1] !== 0x52 || area[2] !== 1) return null;
    const { stack, zeroPage } = await readPages(read);
    const pushed = (area[8] ?? 0) | ((area[9] ?? 0) << 8);
    return {
      kind: 'brk',
      // BRK pushes the address of its opcode + 2.
      pc: (pushed - 2) & 0xffff,
      a: area[3] ?? 0,
      x: area[4] ?? 0,
      y: area[5] ?? 0,
      p: area[6] ?? 0,
      sp: area[7] ?? 0xff,
      stack,
      zeroPage,
      cycle: null,
    };
  }

  /**
   * Receiver first, then the stream, then the snapshot: a write between the stream's start and the
   * snapshot is both in the snapshot and replayed from the trace, which leaves the same memory.
   * `snapshot` false: the run needs no memory from the trace (see waitDebugResult), none is read.
   */
  async #startStream(address: string, snapshot: boolean): Promise<void> {
    const rest = this.#device.rest;
    this.#receiver = await DebugStreamReceiver.open(address, this.#streamCredit);
    try {
      await rest.setConfigItem('Data Streams', 'Debug Stream Mode', JUDGE_STREAM_MODE);
      if (!this.emulation && (await this.#device.family()) === 'u64') await rest.streamStop('video');
      await rest.streamStart('debug', `${address}:${this.#receiver.port}`);
      this.#streaming = true;
      this.#snapshot = snapshot ? [{ address: SNAPSHOT.address, bytes: await rest.readMemory(SNAPSHOT.address, SNAPSHOT.length) }] : [];
    } catch (e) {
      await this.#stopStream();
      throw e;
    }
  }

  async #stopStream(): Promise<void> {
    const streaming = this.#streaming;
    this.#streaming = false;
    this.#receiver?.close();
    this.#receiver = null;
    if (streaming) await this.#device.rest.streamStop('debug');
  }

  async waitDebugResult(deadline: number, protocol: RunProtocol): Promise<DebugWait> {
    const range = prgLoadRange(this.#prg);
    // With a receiver every run is observed from the stream: every $D7FF write, with its cycle —
    // polling misses markers written within one poll. Memory is reconstructed from the trace only
    // for a run that needs it (exact observation: the end state at the ending write; markers
    // captured at their exact write, without the handshake). A harness-convention run keeps its
    // end state read from the machine after the end and its checkpoints read in pause episodes, as
    // when polled, so it needs no snapshot of the memory before the run.
    if (this.#pendingStart && this.#receiverAddress !== null && range) {
      const address = this.#receiverAddress;
      const traceMemory = protocol.exactObservation === true || (protocol.checkpoints !== undefined && !protocol.checkpoints.handshake);
      try {
        const receiver = await this.#timed(async () => {
          await this.#startStream(address, traceMemory);
          await this.#runPrg();
          return this.#receiver!;
        });
        return await this.#timed(() => this.#waitOnStream(receiver, deadline, protocol, traceMemory));
      } finally {
        await this.#timed(() => this.#stopStream());
      }
    }
    // REST polling: a value written and overwritten between two polls is missed; no cycles. The
    // register starts at a value that ends nothing, so any verdict value — $00 too — is a change.
    const idle = pollingIdleValue(protocol);
    // A run that asks for crashes without the program's cooperation gets the DMA-installed hook.
    const signal = protocol.exactObservation ? crashHookSignal(protocol.classify, idle) : null;
    let hook: InstalledCrashHook | undefined;
    if (this.#pendingStart) {
      if (signal !== null && !prgOverlapsHook(this.#prg, signal)) {
        const s = signal;
        hook = await this.#timed(() => this.#runPrgWithHook(idle, s));
      } else await this.#timed(() => this.#runPrg(idle));
    }
    const writes: DebugRegisterWrite[] = [];
    // Without a trace the end state is the machine as it is when it is read, still running.
    const endState: EndStateMoment = {
      cycle: null,
      at: 'when the service read it after the run ended (the machine still running)',
      exact: false,
      how: 'REST readmem after the polled end; no cycle is known without a debug stream',
    };
    const base = { writes, writesExact: false, cycleSource: null, endState, ...(hook ? { crashHook: hook } : {}) };
    let last: number = idle;
    for (;;) {
      const v = await this.#read('GET /v1/machine:debugreg', () => this.#device.rest.debugRegister());
      if (v !== last) {
        if (hook && v === hook.signal) {
          const crash = await this.#readHookCrash(hook);
          if (crash) return { ...base, outcome: 'crashed', crash };
        }
        writes.push({ value: v, cycle: 0 });
        const verdict = protocol.classify(v);
        if (verdict === 'crash')
          return { ...base, outcome: 'crashed', crash: await readHarnessCrash((a, n) => this.readMemory(a, n), null) };
        if (verdict) return { ...base, outcome: 'ended', verdict, value: v };
        const checkpoints = protocol.checkpoints;
        const point = checkpoints?.pointFor(v);
        if (point && checkpoints) await this.#timed(() => this.#checkpointEpisode(point, checkpoints));
      }
      last = v;
      if (performance.now() >= deadline) return { ...base, outcome: 'timeout', started: writes.length > 0 };
      await this.#timed(() => sleep(POLL_MS));
    }
  }

  async #waitOnStream(receiver: DebugStreamReceiver, deadline: number, protocol: RunProtocol, traceMemory: boolean): Promise<DebugWait> {
    // Host work a marker asks for (the harness handshake) runs in order, beside the stream.
    let hostWork: Promise<void> = Promise.resolve();
    let hostError: unknown;
    // A failed pause episode ends the wait at once: the program spins unacknowledged, nothing more comes.
    let stopWaiting: () => void = () => undefined;
    const onMarker = (m: MarkerEvent) => {
      const cp = protocol.checkpoints;
      const point = cp?.pointFor(m.value);
      if (!point || !cp) return;
      if (!cp.handshake) {
        cp.record(
          point,
          point.ranges.map((r) => m.memory(r.address, r.length)),
        );
        return;
      }
      // The program spins in the harness until acknowledged: the same pause episode as polling.
      hostWork = hostWork
        .then(() => this.#checkpointEpisode(point, cp))
        .catch((e: unknown) => {
          hostError ??= e;
          stopWaiting();
        });
    };
    const observer = new BusTraceObserver({
      prg: this.#prg,
      protocol,
      snapshot: this.#snapshot,
      family: await this.#device.family(),
      onMarker,
    });
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, deadline - performance.now()));
      stopWaiting = () => {
        clearTimeout(timer);
        resolve();
      };
      receiver.drainTo((entries) => {
        if (observer.feed(entries)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    await hostWork;
    if (hostError !== undefined) throw hostError;
    // The time ran out: a program BASIC ran (and never wrote $D7FF) did start, at BASIC's start.
    if (!observer.end) observer.settle();
    const exact = receiver.losses === 0 && observer.started;
    const cycles = exact && observer.sawVicHalves;
    const end = observer.end;
    // The end state is the trace's memory at the end (the machine itself has run on since): the
    // same moment the vice target reads, stopped at the write. Harness hand-offs are read live, and
    // so is the end state of a run that needs no memory from the trace (no snapshot was read).
    const traced = end !== null && end.outcome !== 'harness-crash';
    if (traced && traceMemory) this.#endMemory = (a, n) => observer.memory(a, n);
    const endState: EndStateMoment = !traced
      ? {
          cycle: null,
          at: end
            ? 'the harness crash hand-off, read from the machine afterwards'
            : 'the time budget ran out: read from the machine afterwards',
          exact: false,
          how: 'REST readmem after the stream stopped',
        }
      : !traceMemory
        ? {
            cycle: null,
            at: `after ${endMomentOf(end)} (the machine still running)`,
            exact: false,
            how: 'REST readmem after the stream stopped, as a polled run reads it (the harness convention: the program settles in its loop after its result)',
          }
        : {
            cycle: cycles ? observer.cycle : null,
            at: endMomentOf(end),
            exact: exact,
            how: 'reconstructed from the debug-stream trace at that cycle ($0000-$CFFF; other addresses read from the machine afterwards)',
          };
    const base = {
      writes: observer.writes,
      writesExact: exact,
      cycleSource: cycles ? 'debug-stream' : null,
      endState,
      ...(observer.startKind ? { programStart: observer.startKind } : {}),
    };
    return waitOfTraceEnd(base, end, observer.started, cycles, async (cycle) => {
      await this.#stopStream();
      return readHarnessCrash((a, n) => this.readMemory(a, n), cycle);
    });
  }

  /**
   * One pause episode: the program spins until the acknowledgement, so its state is settled; pause
   * it, read every range, write the acknowledgement (the only mutation), resume once. Nothing in
   * an episode is retried, strict_gate or not: a repeated resume could run the program past a
   * point unobserved. After a failure the machine is resumed once (still one resume) and the run
   * ends as an error.
   */
  async #checkpointEpisode(point: CheckpointPointSpec, checkpoints: CheckpointRecorder): Promise<void> {
    const rest = this.#device.rest;
    await rest.pause();
    let resumed = false;
    try {
      const bytes: Uint8Array[] = [];
      for (const r of point.ranges) bytes.push(await rest.readMemory(r.address, r.length));
      checkpoints.record(point, bytes);
      await rest.writeMemory(CHECKPOINT_ACK_ADDRESS, Uint8Array.of(point.marker));
      checkpoints.acknowledgements++;
      resumed = true;
      await rest.resume();
    } finally {
      if (!resumed) await rest.resume().catch(() => undefined);
    }
  }

  async readMemory(address: number, length: number): Promise<Uint8Array> {
    // A run observed by the screen never calls waitDebugResult: the deferred start happens here.
    if (this.#pendingStart) await this.#timed(() => this.#runPrg());
    if (this.#endMemory && address + length <= TRACED_END) return this.#endMemory(address, length);
    return this.#read('GET /v1/machine:readmem', () => this.#device.rest.readMemory(address, length));
  }

  async pollMemory(address: number, length: number, deadline: number, done: (b: Uint8Array) => boolean): Promise<Uint8Array> {
    for (;;) {
      const bytes = await this.readMemory(address, length);
      if (done(bytes) || performance.now() >= deadline) return bytes;
      await this.#timed(() => sleep(Math.min(50, Math.max(0, deadline - performance.now()))));
    }
  }

  async close(): Promise<void> {
    await this.#stopStream().catch(() => undefined);
    await this.#device.close();
  }
}
