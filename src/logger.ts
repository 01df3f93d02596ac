// The package's one logger lives in common/ (engines use it too); re-exported here for the public API.
export { createLogger, logLevelFromEnv, silentLogger, type Logger, type LogLevel } from '../common/logger.js';
