// engines/ultimate/virtual: the virtual Ultimate 64 — a C64 (c64/: one chip a file, and the board
// that wires them) with the Ultimate's servers around it (device/: REST, FTP, DMA, the debug
// streamer, the VICE monitor), and the Elite II's RISC-V core (riscv/). This file is only the
// facade: what a Node app or the service imports.
export {
  VIRTUAL_FIRMWARE,
  VIRTUAL_PRODUCT,
  VIRTUAL_PRODUCT_ELITE2,
  VIRTUAL_PRODUCT_U2PLUS,
  type VirtualFirmware,
  type VirtualPorts,
  type VirtualProduct,
  VirtualUltimate,
  type VirtualUltimateOptions,
} from './device/virtual-ultimate.js';
export {
  type DeviceThreadStats,
  type VirtualThreadOptions,
  VirtualUltimateThread,
} from './device/virtual-ultimate-thread.js';
export { MachineClock, PAL_CLOCK_HZ } from './c64/clock.js';
export { DebugStreamer, parseDestination } from './device/debug-streamer.js';
export { VirtualFs, ROOTS } from './device/virtual-fs.js';
export type { MachineSeam } from './c64/machine-seam.js';
export { PortInUseError, type VirtualServiceRole } from './device/port-in-use-error.js';
export type { PassivePortRange } from './device/ftp-passive-ports.js';
// The virtual C64 behind VICE's monitors only (`ultimate-tool virtual-vice`).
export { runVirtualViceCli, startVirtualVice, parseVirtualViceArgs, VIRTUAL_VICE_USAGE } from './device/virtual-vice.js';
// The Elite II's native mode, for callers of the virtual device.
export type { NativeRunReport, NativeRunStatus, NativeState, RunUpdateOptions } from './riscv/native-mode.js';
export { faultsFor, FaultInjector, type FaultSpec } from './device/fault-injection.js';
export { stepsFor, StepWatch, type StepHold, type WatchedStep } from './device/step-watch.js';
// The C64's power-on RAM pattern: the service writes it before a run on every target (one RAM state).
export { fillPowerOnPattern } from './c64/ram-power-on.js';
export { dramPowerOnPattern } from './c64/rec8726.js';
