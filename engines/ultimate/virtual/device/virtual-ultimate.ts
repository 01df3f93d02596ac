// The virtual Ultimate 64: U1's emulated C64 (machine.ts) behind the device's network services —
// REST (HTTP), FTP, the DMA port, the UDP debug stream and a VICE binary monitor — all bound to
// loopback on configurable ports (0 = ephemeral, reported back). Its /v1/info says plainly that it
// is virtual; it never pretends to be hardware.
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { type C64Roms, type CiaModel, C64Machine, type VideoStandard } from '../c64/machine.js';
import type { VicRevision } from '../c64/vic-ii.js';
import { loadRomDir } from '../c64/rom-dir.js';
import type { MachineSeam } from '../c64/machine-seam.js';
import { MachineClock } from '../c64/clock.js';
import { DebugStreamer, SEND_PER_TURN, type StreamDestination } from './debug-streamer.js';
import type { StreamCredit } from '../../debug-stream/stream-credit.js';
import { VirtualFs } from './virtual-fs.js';
import { ConfigStore, REU_PRELOAD_OFFSETS, U64_CATEGORY, VIRTUAL_MACHINE_CATEGORY } from './config-store.js';
import { isDebugStreamMode } from '../c64/debug-stream-mode.js';
import { u64EntryToU2Plus } from '../../debug-stream/decoder.js';
import type { UltimateFamily } from '../../product.js';
import { VirtualHttpServer } from './device-server.js';
import { VirtualFtpServer } from './ftp-server.js';
import { VirtualDmaServer, type DmaDevice } from './dma-server.js';
import { ViceMonitorServer } from './vice-monitor-server.js';
import { listenAs, type VirtualServiceRole } from './port-in-use-error.js';
import type { Answer, DriveState, RestDevice } from './rest-routes.js';
// Elite II native mode: see engines/ultimate/virtual/riscv/ and docs/ultimate/NATIVE.md.
import { BenchPort } from '../riscv/bench-port.js';
import { stepsFor } from './step-watch.js';
import {
  Elite2NativeMode,
  type NativeModeOptions,
  type NativeRunReport,
  type NativeState,
  NativeStateError,
  type RunUpdateOptions,
} from '../riscv/native-mode.js';
import { parseUe2, Ue2FormatError } from '../../riscv-apps/ue2.js';
import { UE2_EXTENSION } from '../../riscv-apps/run-update-trigger.js';

export const VIRTUAL_PRODUCT = 'Ultimate 64 (virtual, mcp-engines emulation)';
export const VIRTUAL_PRODUCT_U2PLUS = 'Ultimate-II+ (virtual, mcp-engines emulation)';
/** Firmware versions whose behaviour the virtual device can follow where they differ. */
export type VirtualFirmware = '3.14' | '3.15';
export const VIRTUAL_FIRMWARE = '0.1.0-virtual';
export const VIRTUAL_PRODUCT_ELITE2 = 'Ultimate 64 Elite II (virtual, mcp-engines emulation)';

/** Which device the virtual Ultimate plays: only the Elite II (RISC-V) runs native update files. */
export type VirtualProduct = 'u64' | 'u2plus' | 'u64-elite2';

export interface VirtualUltimateOptions {
  /** Bind address (default 127.0.0.1). Only loopback addresses are accepted. */
  host?: string;
  httpPort?: number;
  ftpPort?: number;
  /**
   * The ports FTP passive data connections listen on (PASV), inclusive; default: any free port
   * the system gives. A PASV finding every port of the range taken answers 425.
   */
  ftpPassivePorts?: { from: number; to: number };
  dmaPort?: number;
  /** VICE binary monitor port; null disables the monitor. */
  vicePort?: number | null;
  /** Network password for REST, FTP and the DMA port. */
  password?: string;
  /** Clock speed as a multiple of the PAL C64 (default 1), or 'max'. */
  speed?: number | 'max';
  /** Clock slice length in ms (default 5). */
  sliceMs?: number;
  /** Drop debug-stream datagrams on purpose (loss tests). */
  dropDatagram?: (sequence: number, ordinal: number) => boolean;
  /** Unique id reported by /v1/info (default: random per instance). */
  uniqueId?: string;
  hostname?: string;
  /** Largest REST body (default 4 MiB). */
  maxBodyBytes?: number;
  /** Throttle before a refused DMA or FTP password is answered (default 1000 ms, as the firmware). */
  dmaAuthThrottleMs?: number;
  /** Start the clock (default true); false leaves the machine stopped until clock.start(). */
  autoStart?: boolean;
  /**
   * Which device to play (default 'u64'): an Ultimate 64; 'u2plus', an Ultimate-II+ (no
   * FF76/FF2x/FF3x, no debugreg, U2+ stream bits); 'u64-elite2', an Ultimate 64 Elite II, which
   * also runs native update files (Run Update and native mode, docs/ultimate/NATIVE.md).
   */
  product?: VirtualProduct;
  /** Elite II only: the lab-bench port (UART console, power switch); default 0 (ephemeral). */
  benchPort?: number;
  /** Elite II only: native-run bounds, and whether the Run Update trigger is answered
   *  ('reply', default) or the device goes native before answering ('none', as hardware may). */
  native?: NativeModeOptions & { runUpdateAnswer?: 'reply' | 'none' };
  /** Firmware whose behaviour to follow where versions differ (default '3.15'): 3.15 closes idle DMA connections. */
  firmware?: VirtualFirmware;
  /** Close DMA connections idle this long; null never. Default: 1000 ms for 3.15, never for 3.14. */
  dmaIdleCloseMs?: number | null;
  /** Close FTP control connections without a command this long; null never. Default: 300 000 ms for 3.15, never for 3.14. */
  ftpControlIdleMs?: number | null;
  /** `00 00` probes before a unicast debug stream (1..10, default 2), as the firmware's ARP step. */
  streamProbes?: number;
  /** The debug stream's UDP source port: default 6510 (the firmware's) when free, else ephemeral; 0 = ephemeral. */
  streamSourcePort?: number;
  /**
   * Flow control with a stream receiver on another thread (the device on its own thread,
   * device-thread.ts): sends hold back while that receiver is a window behind. Default: none.
   */
  streamCredit?: StreamCredit;
  /** Files on the device's storage at boot (path → bytes), e.g. an REU preload image. */
  files?: Record<string, Uint8Array>;
  /** Configuration at boot ({category: {item: value}}), as saved to flash; read by the REU preload. */
  config?: Record<string, Record<string, string | number>>;
  /** The emulated C64's CIA revision (default '6526'). */
  ciaModel?: CiaModel;
  /** PAL (default) or NTSC VIC-II. */
  video?: VideoStandard;
  /** The VIC-II's revision: 'old' (6569/6567, default) or 'new' (8565/8562, as in a C64C). */
  vicRevision?: VicRevision;
  /**
   * REU at $DF00 of this size in KiB, 0 for none. Sets the configuration items "RAM Expansion
   * Unit" and "REU Size" at boot (over `config`); without it those items decide (default: none).
   */
  reuKb?: number;
  /**
   * The "Virtual C64 (emulation)" configuration items (CIA model, VIC-II revision and NTSC chip,
   * power-cycling reset), which let a client choose the emulated board per run (default true).
   * false: the virtual device plays hardware, whose configuration has none of them.
   */
  virtualMachineSettings?: boolean;
  /** Real ROM images (default: the stand-in). */
  roms?: C64Roms;
  /** A folder holding VICE's ROM file names (rom-dir.ts); used when `roms` is not given. */
  romDir?: string;
}

export interface VirtualPorts {
  host: string;
  http: number;
  ftp: number;
  dma: number;
  vice: number | null;
  /** The lab-bench port of an Elite II, else absent. */
  bench?: number;
}

const REU_BYTES = 16 * 1024 * 1024;
/** Clocks of one unpaced burst while no debug stream runs (well under 1 ms of host time). */
const UNSTREAMED_BURST_CLOCKS = 20_000;
/** How long after a request the machine runs unpaced at speed 'max' (a client polls within it). */
const IDLE_AFTER_MS = 1000;
const REU_CATEGORY = 'C64 and Cartridge Settings';
/** The "REU Size" choices and their sizes in KiB. */
const REU_SIZE_LABELS = new Map<string, number>([
  ['128 KB', 128],
  ['256 KB', 256],
  ['512 KB', 512],
  ['1 MB', 1024],
  ['2 MB', 2048],
  ['4 MB', 4096],
  ['8 MB', 8192],
  ['16 MB', 16384],
]);

function isLoopback(host: string): boolean {
  return host === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::1';
}

export class VirtualUltimate implements RestDevice {
  readonly machine: MachineSeam;
  readonly clock: MachineClock;
  readonly streamer: DebugStreamer;
  readonly fs = new VirtualFs();
  readonly config: ConfigStore;
  readonly drives = new Map<string, DriveState>([
    ['a', { enabled: true, type: '1541' }],
    ['b', { enabled: false, type: '1541' }],
  ]);
  /**
   * The REU memory (16 MiB, allocated when first needed): one memory, as on the Ultimate — the
   * C64's REC at $DF00 uses its first "REU Size" bytes, DMA command FF07 and the REU preload
   * write into it.
   */
  #reu?: Uint8Array;
  readonly #uniqueId: string;
  readonly #hostname: string;
  readonly #http: VirtualHttpServer;
  readonly #ftp: VirtualFtpServer;
  readonly #dma: VirtualDmaServer;
  readonly #vice?: ViceMonitorServer;
  /** When a request last came in (REST, FTP, DMA): the clock runs unpaced for IDLE_AFTER_MS after it. */
  #lastActivity = performance.now();
  readonly host: string;
  /** The device family played (from `product`). */
  readonly family: UltimateFamily;
  readonly firmware: VirtualFirmware;
  ports!: VirtualPorts;
  // Elite II native mode.
  readonly product: VirtualProduct;
  readonly #native?: Elite2NativeMode;
  readonly #bench?: BenchPort;
  readonly #runUpdateAnswer: 'reply' | 'none';
  /** A request came in (REST, FTP, DMA): somebody waits on the machine (see IDLE_AFTER_MS). */
  noteActivity(): void {
    this.#lastActivity = performance.now();
  }

  /** Present on an Elite II only: the REST trigger's handler (rest-routes.ts, runners:run_update). */
  readonly runUpdateFile?: (path: string) => Answer;

  private constructor(opts: VirtualUltimateOptions) {
    this.host = opts.host ?? '127.0.0.1';
    if (!isLoopback(this.host)) throw new Error(`the virtual device binds loopback only; got host ${this.host}`);
    this.#uniqueId = opts.uniqueId ?? randomBytes(4).toString('hex').toUpperCase();
    this.#hostname = opts.hostname ?? 'virtual-u64';
    this.family = opts.product === 'u2plus' ? 'u2plus' : 'u64';
    this.firmware = opts.firmware ?? '3.15';
    this.config = new ConfigStore({ u64Settings: this.family === 'u64', virtualMachine: opts.virtualMachineSettings !== false });
    this.#bootBoard(opts);
    this.streamer = new DebugStreamer({
      drop: opts.dropDatagram,
      bindAddress: this.host,
      probes: opts.streamProbes,
      sourcePort: opts.streamSourcePort,
      credit: opts.streamCredit,
    });
    const streamer = this.streamer;
    let vice: ViceMonitorServer | undefined;
    const u2plus = this.family === 'u2plus';
    // One bus-cycle sink: the stream while it runs (in the product's bit layout), the monitor's
    // load/store watch while it has any (U64 layout, as the machine produces it).
    const machine = new C64Machine({
      ciaModel: opts.ciaModel,
      video: opts.video,
      vicRevision: opts.vicRevision,
      roms: opts.roms ?? (opts.romDir !== undefined ? loadRomDir(opts.romDir) : undefined),
      onBusCycle: (entry: number) => {
        if (streamer.active) streamer.push(u2plus ? u64EntryToU2Plus(entry) : entry);
        if (vice?.watching) vice.watchBus(entry);
      },
    });
    this.machine = machine as unknown as MachineSeam;
    this.clock = new MachineClock(this.machine, {
      speed: opts.speed ?? 1,
      sliceMs: opts.sliceMs,
      afterSlice: () => vice?.afterSlice(),
      // Node's UDP socket takes at most 32 datagrams per turn of the event loop: a burst must not
      // make more than the streamer sends a turn (4 000 clocks are ≤ 23 datagrams of "6510 & VIC"),
      // and none while datagrams of a synchronous run (the reset's boot) still wait to be sent.
      // Without a stream the bursts stay short too: the service's REST requests to this device are
      // served between bursts on the same event loop, and a request takes several turns (client
      // write, server parse, answer, client parse), each waiting out one burst. 200 000 clocks a
      // burst (3-30 ms of host time) made a run's ~30 requests cost ~1 s of waiting.
      burstClocks: () => (streamer.active ? (streamer.backlog > SEND_PER_TURN ? 0 : 4_000) : UNSTREAMED_BURST_CLOCKS),
      // Full speed serves whoever waits on the machine: the stream's receiver, a monitor client, a
      // request in the last second. Nobody waiting, it runs at the PAL rate: an idle device in the
      // service's process used to take a whole core away from the service judging the runs.
      idle: () => !streamer.active && !vice?.connected && performance.now() - this.#lastActivity > IDLE_AFTER_MS,
    });
    const password = opts.password || undefined;
    this.#http = new VirtualHttpServer({
      device: this,
      password,
      host: this.host,
      port: opts.httpPort ?? 0,
      onActivity: () => this.noteActivity(),
      maxBodyBytes: opts.maxBodyBytes,
    });
    this.#ftp = new VirtualFtpServer({
      fs: this.fs,
      password,
      host: this.host,
      port: opts.ftpPort ?? 0,
      ...(opts.ftpPassivePorts ? { passivePorts: opts.ftpPassivePorts } : {}),
      badPasswordDelayMs: opts.dmaAuthThrottleMs,
      controlIdleMs: opts.ftpControlIdleMs !== undefined ? opts.ftpControlIdleMs : this.firmware === '3.15' ? 300_000 : null,
      beforeStore: () => stepsFor(this).pass('ftp-stor'),
      onActivity: () => this.noteActivity(),
    });
    this.#dma = new VirtualDmaServer({
      device: this.#dmaDevice(),
      onActivity: () => this.noteActivity(),
      password,
      host: this.host,
      port: opts.dmaPort ?? 0,
      authThrottleMs: opts.dmaAuthThrottleMs,
      family: this.family,
      idleCloseMs: opts.dmaIdleCloseMs !== undefined ? opts.dmaIdleCloseMs : this.firmware === '3.15' ? 1000 : null,
    });
    // Power-on: the storage and the saved configuration are there before the machine boots; the
    // REU preload happens now and only now (reu_preloader.cc), never on a later reset.
    for (const [path, bytes] of Object.entries(opts.files ?? {})) this.fs.write(this.fs.resolve('/', path), bytes);
    for (const [cat, items] of Object.entries(opts.config ?? {})) {
      for (const [item, value] of Object.entries(items)) {
        const err = this.config.set(cat, item, value);
        if (err) throw new Error(`virtual device config: ${err}`);
      }
    }
    if (opts.reuKb !== undefined) this.#configureReu(opts.reuKb);
    // What start() is given counts as saved to flash: save_to_flash has nothing to write yet.
    this.config.markAllSaved();
    // The REU settings take effect at every reset of the C64 (and now, at power-on).
    machine.beforeReset = () => {
      this.#applyReuSettings(machine);
      this.#applyBoardSettings(machine);
    };
    this.#applyReuSettings(machine);
    machine.reset();
    this.#preloadReu();
    if (opts.vicePort !== null) {
      vice = new ViceMonitorServer({
        machine: this.machine,
        clock: this.clock,
        host: this.host,
        port: opts.vicePort ?? 0,
        loadFile: (name) => {
          try {
            return this.fs.read(this.fs.resolve('/', name));
          } catch {
            return undefined;
          }
        },
      });
      this.#vice = vice;
    }
    this.product = opts.product ?? 'u64';
    this.#runUpdateAnswer = opts.native?.runUpdateAnswer ?? 'reply';
    if (this.product === 'u64-elite2') {
      this.#native = new Elite2NativeMode(
        { c64: () => this.machine, enterNative: () => this.#enterNative(), leaveNative: () => this.#leaveNative() },
        opts.native,
      );
      this.#bench = new BenchPort(this, { host: this.host, port: opts.benchPort ?? 0 });
      this.runUpdateFile = (path) => this.#runUpdateFile(path);
    }
  }

  /**
   * Builds the device, binds every service and starts the clock. A port that cannot be bound
   * rejects with PortInUseError (its role and port) after closing whatever was already bound, and
   * before the clock starts.
   */
  static async start(opts: VirtualUltimateOptions = {}): Promise<VirtualUltimate> {
    const dev = new VirtualUltimate(opts);
    const started: Array<{ close(): Promise<void> }> = [];
    // Each service is recorded before it listens: one that bound part of itself (the VICE monitor
    // has two sockets) is closed too.
    const bind = (
      role: VirtualServiceRole,
      service: { close(): Promise<void> },
      port: number | undefined,
      listen: () => Promise<number>,
    ) => {
      started.push(service);
      return listenAs(role, dev.host, port ?? 0, listen);
    };
    try {
      const http = await bind('REST', dev.#http, opts.httpPort, () => dev.#http.listen());
      const ftp = await bind('FTP', dev.#ftp, opts.ftpPort, () => dev.#ftp.listen());
      const dma = await bind('DMA', dev.#dma, opts.dmaPort, () => dev.#dma.listen());
      const viceServer = dev.#vice;
      const vice = viceServer ? await bind('VICE monitor', viceServer, opts.vicePort ?? 0, () => viceServer.listen()) : null;
      dev.ports = { host: dev.host, http, ftp, dma, vice };
      const bench = dev.#bench;
      if (bench) dev.ports.bench = await bind('lab bench', bench, opts.benchPort, () => bench.listen());
    } catch (err) {
      for (const s of started) await s.close().catch(() => undefined);
      await dev.streamer.close();
      throw err;
    }
    if (opts.autoStart !== false) dev.clock.start();
    return dev;
  }

  /** The `product` string of /v1/info for the device played. */
  productName(): string {
    if (this.product === 'u64-elite2') return VIRTUAL_PRODUCT_ELITE2;
    return this.family === 'u2plus' ? VIRTUAL_PRODUCT_U2PLUS : VIRTUAL_PRODUCT;
  }

  /**
   * Fields that replace those of /v1/info (tests of identity-bound authorizations change the
   * firmware or core of a running device with it, as a firmware update would).
   */
  identityOverrides: Record<string, unknown> = {};

  identity(): Record<string, unknown> {
    return {
      product: this.productName(),
      firmware_version: VIRTUAL_FIRMWARE,
      fpga_version: 'virtual',
      ...(this.family === 'u64' ? { core_version: 'virtual' } : {}),
      hostname: String(this.config.get('Network Settings', 'Host Name') ?? this.#hostname),
      unique_id: this.#uniqueId,
      virtual: true,
      notice: 'This is an emulation (mcp-engines virtual Ultimate 64), not hardware.',
      ...this.identityOverrides,
    };
  }

  /** Reset as the menu's reset does. The REU keeps its contents; nothing is preloaded (boot only). */
  reset(): void {
    this.machine.reset();
    this.clock.release('power-off');
  }

  reboot(): void {
    this.reset();
  }

  /**
   * A PRG through the boot cartridge (REST runners, DMA FF01/FF02/FF09), as the firmware's
   * `dma_load` does it: the cartridge's start resets the C64 and lets it run — a machine paused
   * over REST included (c64_subsys.cc: stop unless stopped, then start_cartridge). A client can so
   * pause, fill RAM and start a program without the old program running in between.
   */
  bootLoad(bytes: Uint8Array, then: Parameters<MachineSeam['bootLoad']>[1]): void {
    this.machine.bootLoad(bytes, then);
    this.clock.release('power-off');
    this.clock.release('rest-pause');
  }

  powerOff(): void {
    this.stopDebugStream();
    this.clock.hold('power-off');
  }

  /** Starts the debug stream with the configured "Debug Stream Mode". */
  async startDebugStream(dest: StreamDestination): Promise<void> {
    const mode = String(this.config.get('Data Streams', 'Debug Stream Mode') ?? '6510 Only');
    if ('debugStreamMode' in this.machine && isDebugStreamMode(mode)) this.machine.debugStreamMode = mode;
    await this.streamer.start(dest);
  }
  stopDebugStream(): void {
    this.streamer.stop();
  }

  /** The REU's size in KiB from the settings "RAM Expansion Unit" and "REU Size" (0 = none). */
  reuSizeKb(): number {
    if (String(this.config.get(REU_CATEGORY, 'RAM Expansion Unit')) !== 'Enabled') return 0;
    return REU_SIZE_LABELS.get(String(this.config.get(REU_CATEGORY, 'REU Size'))) ?? 0;
  }

  #configureReu(kb: number): void {
    const label = [...REU_SIZE_LABELS].find(([, v]) => v === kb)?.[0];
    if (kb !== 0 && label === undefined) {
      throw new RangeError(`reuKb must be 0 (no REU) or one of ${[...REU_SIZE_LABELS.values()].join(', ')}; got ${kb}`);
    }
    this.config.set(REU_CATEGORY, 'RAM Expansion Unit', kb === 0 ? 'Disabled' : 'Enabled');
    if (label !== undefined) this.config.set(REU_CATEGORY, 'REU Size', label);
  }

  /** Plugs the REU the settings ask for into the C64, over the device's one REU memory. */
  #applyReuSettings(machine: C64Machine): void {
    const kb = this.reuSizeKb();
    if (kb === machine.reuKb && (kb === 0 || machine.reu?.ram === this.#reu)) return;
    machine.setReu(kb, kb === 0 ? undefined : this.#reuMemory());
  }

  /** The board options given at start, as the configuration items say them (so a reset keeps them). */
  #bootBoard(opts: VirtualUltimateOptions): void {
    const set = (cat: string, item: string, value: string) => {
      if (this.config.item(cat, item)) this.config.set(cat, item, value);
    };
    if (opts.video !== undefined) {
      set(U64_CATEGORY, 'System Mode', opts.video === 'pal' ? 'PAL' : 'NTSC');
      set(VIRTUAL_MACHINE_CATEGORY, 'NTSC VIC-II', opts.video === 'ntsc-old' ? '6567R56A' : '6567R8');
    }
    if (opts.ciaModel !== undefined) set(VIRTUAL_MACHINE_CATEGORY, 'CIA Model', opts.ciaModel);
    if (opts.vicRevision !== undefined) set(VIRTUAL_MACHINE_CATEGORY, 'VIC-II Revision', opts.vicRevision === 'new' ? 'New' : 'Old');
  }

  /**
   * The board the settings ask for, put in at every reset: "System Mode" (the firmware's: the 50 Hz
   * modes run PAL timing, the 60 Hz ones NTSC) and, where present, the virtual items (CIA model,
   * VIC-II revision, the NTSC chip); "Reset: Power Cycle" powers the C64 on again (RAM in a real
   * board's power-on pattern) instead of keeping RAM as a reset does.
   */
  #applyBoardSettings(machine: C64Machine): void {
    const get = (cat: string, item: string) => {
      const v = this.config.get(cat, item);
      return v === undefined ? undefined : String(v);
    };
    const mode = get(U64_CATEGORY, 'System Mode');
    let video = machine.video;
    if (mode !== undefined) {
      const fifty = mode === 'PAL' || mode.startsWith('NTSC-50');
      video = fifty ? 'pal' : get(VIRTUAL_MACHINE_CATEGORY, 'NTSC VIC-II') === '6567R56A' ? 'ntsc-old' : 'ntsc';
    }
    const cia = get(VIRTUAL_MACHINE_CATEGORY, 'CIA Model');
    const vic = get(VIRTUAL_MACHINE_CATEGORY, 'VIC-II Revision');
    machine.setBoard({
      video,
      ciaModel: (cia as C64Machine['ciaModel'] | undefined) ?? machine.ciaModel,
      vicRevision: vic === undefined ? machine.vicRevision : vic === 'New' ? 'new' : 'old',
    });
    if (get(VIRTUAL_MACHINE_CATEGORY, 'Reset') === 'Power Cycle') machine.powerOnRam();
  }

  #reuMemory(): Uint8Array {
    this.#reu ??= new Uint8Array(REU_BYTES);
    return this.#reu;
  }

  /** REU contents, as the C64's REC sees them at the same offsets (the first "REU Size" bytes). */
  readReu(offset: number, length: number): Uint8Array {
    const out = new Uint8Array(length);
    if (this.#reu) for (let i = 0; i < length; i++) out[i] = this.#reu[(offset + i) & 0xffffff]!;
    return out;
  }

  writeReu(offset: number, bytes: Uint8Array): void {
    const reu = this.#reuMemory();
    if (offset + bytes.length <= REU_BYTES) reu.set(bytes, offset);
    else for (let i = 0; i < bytes.length; i++) reu[(offset + i) & 0xffffff] = bytes[i]!;
  }

  #preloadReu(): void {
    const on = (item: string) => String(this.config.get('C64 and Cartridge Settings', item)) === 'Enabled';
    if (!on('RAM Expansion Unit') || !on('REU Preload')) return;
    const image = String(this.config.get('C64 and Cartridge Settings', 'REU Preload Image') ?? '');
    const offset = REU_PRELOAD_OFFSETS.get(String(this.config.get('C64 and Cartridge Settings', 'REU Preload Offset'))) ?? 0;
    if (offset >= REU_BYTES) return;
    try {
      this.writeReu(offset, this.fs.read(this.fs.resolve('/', image)));
    } catch {
      // The firmware also starts without the image when it cannot be read.
    }
  }

  #dmaDevice(): DmaDevice {
    const dev = this;
    return {
      loadPrg: (bytes, then) => dev.bootLoad(bytes, then),
      writeMemory: (a, b) => dev.machine.writeMem(a, b),
      // FF03: the firmware copies the bytes to $0277 and sets $C6 to their count, whatever the
      // count (beyond 10 it overwrites what follows the buffer, as on hardware).
      typeKeys: (k) => {
        const keys = Uint8Array.from(k.slice(0, 0x10000 - 0x277));
        dev.machine.writeMem(0x0277, keys);
        dev.machine.writeMem(0x00c6, Uint8Array.of(keys.length & 0xff));
      },
      reset: () => dev.reset(),
      writeReu: (o, b) => dev.writeReu(o, b),
      identify: () => dev.productName(),
      get debugRegister() {
        return dev.machine.debugRegister;
      },
      set debugRegister(v: number) {
        dev.machine.debugRegister = v & 0xff;
      },
      startDebugStream: (d) => dev.startDebugStream(d),
      stopDebugStream: () => dev.stopDebugStream(),
      defaultDebugDestination: () => String(dev.config.get('Data Streams', 'Stream Debug to') ?? '239.0.1.66:11002'),
      powerOff: () => dev.powerOff(),
      replaceKernal: (rom) => dev.machine.replaceKernal?.(rom),
    };
  }

  // ---- Elite II native mode (Run Update, native state, recovery) ----

  /** 'firmware', or 'native' with the running (or stopped) program's report. */
  get nativeState(): NativeState {
    return this.#native?.state ?? { mode: 'firmware' };
  }

  get lastNativeRun(): NativeRunReport | undefined {
    return this.#native?.lastRun;
  }

  /** Run Update with the file's bytes (programmatic; the network trigger is runners:run_update). */
  runUpdate(ue2: Uint8Array, opts: RunUpdateOptions = {}): Promise<NativeRunReport> {
    if (!this.#native) return Promise.reject(new NativeStateError('Run Update needs an Ultimate 64 Elite II (product u64-elite2)'));
    return this.#native.runUpdate(ue2, opts);
  }

  whenNativeStopped(): Promise<NativeRunReport> {
    if (!this.#native) return Promise.reject(new NativeStateError('not an Elite II: no native program runs here'));
    return this.#native.whenStopped();
  }

  /** The power cycle tests use: halts native code, restarts the C64, services listen again. */
  async recover(): Promise<void> {
    await this.#native?.recover();
  }

  #runUpdateFile(path: string): Answer {
    let bytes: Uint8Array;
    try {
      bytes = this.fs.read(this.fs.resolve('/', path));
    } catch {
      return { status: 404, json: { errors: [`Cannot open file ${path}`] } };
    }
    if (!path.toLowerCase().endsWith(UE2_EXTENSION)) {
      return {
        status: 415,
        json: { errors: [`${path} is not an update file for this product (expected the ${UE2_EXTENSION.toUpperCase()} extension)`] },
      };
    }
    let image: ReturnType<typeof parseUe2>;
    try {
      image = parseUe2(bytes);
    } catch (e) {
      if (e instanceof Ue2FormatError) return { status: 415, json: { errors: [`Not a valid update file: ${e.message}`] } };
      throw e;
    }
    const go = (): void => {
      this.runUpdate(bytes).catch(() => undefined);
    };
    if (this.#runUpdateAnswer === 'none') go(); // the firmware is gone before it can answer
    const answer = { run_update: { file: path, entry: `0x${image.entry.toString(16).padStart(8, '0')}`, records: image.records.length } };
    return { status: 200, json: { ...answer, errors: [] }, afterSend: this.#runUpdateAnswer === 'reply' ? go : undefined };
  }

  /** The firmware is replaced: its services stop listening (new connections are refused). */
  async #enterNative(): Promise<void> {
    this.stopDebugStream();
    await Promise.all([this.#http.close(), this.#ftp.close(), this.#dma.close(), this.#vice?.close()]);
  }

  /** Power cycle back to the firmware: the C64 restarts; services listen on the same ports again. */
  async #leaveNative(): Promise<void> {
    this.reset();
    await this.#http.listen(this.ports.http);
    await this.#ftp.listen(this.ports.ftp);
    await this.#dma.listen(this.ports.dma);
    if (this.#vice && this.ports.vice !== null) await this.#vice.listen(this.ports.vice);
  }

  /** Stops the clock and closes every service. */
  async stop(): Promise<void> {
    this.#native?.close();
    this.machine.inputLines?.close();
    await this.#bench?.close();
    this.clock.stop();
    await Promise.all([this.#http.close(), this.#ftp.close(), this.#dma.close(), this.#vice?.close()]);
    await this.streamer.close();
  }
}
