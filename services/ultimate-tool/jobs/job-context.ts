// What every kind of job needs from the service around it: the store, the project, the configured
// targets, the label/map analysis, the log and the clock. One object, built once by the service.
import type { Logger } from '../../../common/index.js';
import type { StreamCredit, UltimateDeviceOptions } from '../../../engines/ultimate/index.js';
import type { Manifest } from '../project/manifest.js';
import type { ServiceStore } from '../store/store.js';
import type { SymbolAnalysis } from '../analysis/symbol-analysis.js';
import type { VicePool } from '../targets/vice-pool.js';

export interface ViceTargetConfig {
  /** Emulator argv; the service appends the binary-monitor flags. */
  command: string[];
  /** How long the emulator may take to open its monitor port. */
  startTimeoutMs?: number;
  /** Emulator instances running side by side (`--vice-instances`; default: the machine's cores). */
  instances?: number;
  /** Start each instance with -warp (default true; `--real-time` turns it off). */
  warp?: boolean;
}

export interface UltimateTargetConfig {
  device: UltimateDeviceOptions;
  /** Set when the service started the virtual Ultimate 64 itself (--virtual-device). */
  virtualDevice: boolean;
  /**
   * An IPv4 address of this machine the hardware can stream its debug stream to: test runs are then
   * observed from the bus trace (exact writes, cycles, crashes). Absent: REST polling. The virtual
   * device always streams to 127.0.0.1.
   */
  debugStreamReceiver?: string | null;
  /** The pace of a virtual device started by the service: 'max' (default) or 'real-time' (`--real-time`). */
  speed?: 'max' | 'real-time';
  /**
   * The virtual device started by the service runs on its own thread and paces its debug stream to
   * this process's receivers through this credit (stream-credit.ts). Absent for hardware.
   */
  streamCredit?: StreamCredit;
}

export interface JobContext {
  store: ServiceStore;
  projectRoot: string;
  loadManifest: () => Promise<Manifest>;
  vice: ViceTargetConfig | null;
  /** The vice target's emulator instances (built from `vice` by the service); null when vice is off. */
  vicePool?: VicePool | null;
  ultimate: UltimateTargetConfig | null;
  symbols: SymbolAnalysis | null;
  logger: Logger;
  now: () => number;
}
