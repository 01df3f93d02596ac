/**
 * Logs go to stderr only: on a stdio server, stdout carries protocol bytes and nothing else.
 * The level comes from MCP_ENGINES_LOG (error | warn | info | debug; default warn).
 */
export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
}

const LEVELS = ['error', 'warn', 'info', 'debug'] as const;
type Level = (typeof LEVELS)[number];

function levelFromEnv(): Level {
  const v = process.env.MCP_ENGINES_LOG?.toLowerCase();
  return (LEVELS as readonly string[]).includes(v ?? '') ? (v as Level) : 'warn';
}

export function createLogger(scope: string, level: Level = levelFromEnv()): Logger {
  const max = LEVELS.indexOf(level);
  const make = (l: Level) =>
    LEVELS.indexOf(l) <= max
      ? (message: string) => {
          process.stderr.write(`[${scope}] ${l}: ${message}\n`);
        }
      : () => {};
  return { error: make('error'), warn: make('warn'), info: make('info'), debug: make('debug') };
}
