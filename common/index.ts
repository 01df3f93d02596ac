// Shared, MCP-free plumbing. Every folder may import `common/`; `common/` imports nothing of ours.
export { writeFileDurable, writeJsonDurable, fsyncDirectory, type DurableWriteOptions } from './durable-write.js';
export { JsonFileStore } from './json-store.js';
export { SerialQueue, LeaseTable, CancelledError } from './serial-queue.js';
export { sha256Hex, sha256File } from './sha256.js';
export { checkFileSize, readFileCapped, FileTooLargeError, NotARegularFileError } from './capped-read.js';
export { listenLoopback, closeServer, LOOPBACK } from './loopback.js';
export { packageRoot, packageVersion } from './package-info.js';
export { UsageError, EXIT_USAGE } from './usage-error.js';
export { createLogger, logLevelFromEnv, silentLogger, LOG_LEVELS, type Logger, type LogLevel, type LogSink } from './logger.js';
export { EngineError, isEngineError } from './engine-error.js';
export { runInProcessGroup, killProcessGroup, type ProcessGroupOptions, type ProcessGroupOutcome } from './process-group.js';
export { dieWithParent } from './die-with-parent.js';
