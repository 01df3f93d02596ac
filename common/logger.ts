/**
 * One logger for every part of the package. Logs go to stderr only: on a stdio server stdout
 * carries protocol bytes and nothing else. The level comes from MCP_ENGINES_LOG
 * (error | warn | info | debug; default warn), read once at the edge that creates the logger.
 */
export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
  /** A logger for a sub-part, e.g. `topup` → `topup/router`. */
  child(scope: string): Logger;
}

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function logLevelFromEnv(env: NodeJS.ProcessEnv = process.env): LogLevel {
  const v = env.MCP_ENGINES_LOG?.toLowerCase() ?? '';
  return (LOG_LEVELS as readonly string[]).includes(v) ? (v as LogLevel) : 'warn';
}

export type LogSink = (line: string) => void;

const stderrSink: LogSink = (line) => {
  process.stderr.write(line);
};

export function createLogger(scope: string, level: LogLevel = logLevelFromEnv(), sink: LogSink = stderrSink): Logger {
  const max = LOG_LEVELS.indexOf(level);
  const make = (l: LogLevel) =>
    LOG_LEVELS.indexOf(l) <= max
      ? (message: string) => {
          sink(`[${scope}] ${l}: ${message}\n`);
        }
      : () => {};
  return {
    error: make('error'),
    warn: make('warn'),
    info: make('info'),
    debug: make('debug'),
    child: (sub) => createLogger(`${scope}/${sub}`, level, sink),
  };
}

/** A logger that drops everything (the default inside engines when the embedder passes none). */
export const silentLogger: Logger = {
  error() {},
  warn() {},
  info() {},
  debug() {},
  child: () => silentLogger,
};
