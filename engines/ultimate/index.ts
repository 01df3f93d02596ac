// mcp-engines/engines/ultimate: talk to an Ultimate 64 / Ultimate-II+ (REST, FTP, DMA port, debug
// stream) and to the VICE binary monitor. Knows nothing about MCP.
export { UltimateDevice, type UltimateDeviceOptions, type ProbeSnapshot, type DebugCaptureOptions } from './device.js';
export { productFamily, type UltimateFamily } from './product.js';
export { UltimateError, type UltimateErrorKind, type UltimateErrorDetails } from './errors.js';
export {
  RestClient,
  type RestOptions,
  type DeviceInfo,
  type DeviceAnswer,
  type StreamKind,
  type FileSource,
  type DriveId,
} from './rest.js';
export { UltimateFtp, type FtpOptions, type FtpEntry } from './ftp.js';
export { DmaConnection, DMA_COMMANDS, REU_MAX_CHUNK, type DmaOptions } from './reu.js';
export { DebugStreamCapture, type CaptureOptions, type CaptureSummary } from './debug-stream/capture.js';
export {
  readCaptureFile,
  parseCapture,
  SequenceTracker,
  isStreamProbe,
  type CaptureHeader,
  type CaptureRecord,
  type CaptureStats,
  type ParsedCapture,
  type Truncation,
} from './debug-stream/capture-file.js';
export {
  decodeEntry,
  decodeDatagram,
  encodeEntry,
  classifyEntry,
  u64EntryToU2Plus,
  cpuWrites,
  type BusCycle,
  type BusAccess,
} from './debug-stream/decoder.js';
export {
  DEBUG_DATAGRAM_BYTES,
  DEBUG_ENTRIES_PER_DATAGRAM,
  DEVICE_DATAGRAMS_PER_SECOND,
  datagramSequence,
  datagramEntries,
} from './debug-stream/datagram.js';
export { StreamCredit, StreamPacer } from './debug-stream/stream-credit.js';
export { ViceMonitorClient, type ViceClientOptions, type ViceEvent, type Registers } from './vice/client.js';
export { ViceCommand, ViceError, ViceRegister, CheckpointOp, type CheckpointInfo } from './vice/protocol.js';
export { ViceRunObserver, type ObservedWrite } from './vice/run-observer.js';
export { ioVisible, portLines } from './io-visible.js';
export { CHRGOT_LOAD, CHRGOT_OPERAND_HIGH, firstStatementAddress } from './basic-start.js';
export { ViceTextMonitor } from './vice/text-monitor.js';
// The Elite II's native flow as the Ultimate Tool service drives it (riscv-apps/: .UE2, ELF, the
// RISC-V toolchain, Run Update).
export {
  readElf32,
  RISCV_FLAGS,
  buildRiscvProgram,
  UE2_MAX_FILE_BYTES,
  packUe2FromElf,
  parseUe2,
  placeUtr2Token,
  triggerRunUpdate,
  uploadUpdateFile,
} from './riscv-apps/index.js';
