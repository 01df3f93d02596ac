// Native code for the Ultimate 64 Elite II (docs/ultimate/NATIVE.md): the update-file format, reading linked
// programs, the toolchain, the UTR2 token mailbox and the Run Update trigger. Hardware-free except
// for the trigger, which speaks to a device through the ordinary REST and FTP clients.
export { ElfFormatError, type Elf32Program, type ElfSegment, readElf32 } from './elf32.js';
export * from './elite2-memory-map.js';
export { APP_LINKER_SCRIPT, type BuildInput, type BuildOutput, buildRiscvProgram, RISCV_FLAGS, ToolchainError } from './riscv-toolchain.js';
export {
  RUN_UPDATE_COMMAND,
  RUN_UPDATE_DIR,
  RUN_UPDATE_PATH,
  runUpdateFilePath,
  placeUtr2Token,
  triggerRunUpdate,
  UE2_EXTENSION,
  uploadUpdateFile,
} from './run-update-trigger.js';
export {
  packUe2,
  packUe2FromElf,
  parseUe2,
  UE2_HEADER_BYTES,
  UE2_MAX_FILE_BYTES,
  Ue2FormatError,
  type Ue2Image,
  type Ue2Record,
  type Ue2Segment,
} from './ue2.js';
export {
  checkUtr2Token,
  decodeUtr2Mailbox,
  encodeUtr2Mailbox,
  UTR2_MAGIC,
  UTR2_MAILBOX_C64_ADDRESS,
  UTR2_MAX_TOKEN_BYTES,
  UTR2_REPLY_C64_ADDRESS,
  Utr2TokenError,
} from './utr2-mailbox.js';
