// `topup [--socket <path> | --http [HOST:]PORT]`: the topup server on stdio (default), on a Unix
// socket serving one client at a time, keeping the toplevel across reconnects, or over Streamable
// HTTP (always with a bearer token: topup runs code). Also `mcp-engines topup …`.
// `topup-opt` is the same server with the native agent (phrases compiled to native code).
import { EXIT_USAGE, UsageError } from '../../common/usage-error.js';
import {
  HTTP_OPTIONS_HELP,
  StdioServerTransport,
  serveHttpForCli,
  serveUnixSocket,
  takeHttpOption,
  type HttpCliFlags,
  type StreamableHttpListener,
  type UnixSocketListener,
} from '../../transports/index.js';
import type { TopupRouter } from './router.js';
import { basename } from 'node:path';
import type { AgentDriver } from '../../engines/ocaml/index.js';
import { createSessionRouter } from './routing/index.js';
import { TOPUP_PROTOCOL_VERSION, TOPUP_VERSION, createTopupServer } from './server.js';

/** The two commands of the one topup server: which agent they run and how they are named. */
export type TopupCommand = 'topup' | 'topup-opt';

const DRIVER_OF: Record<TopupCommand, AgentDriver> = { topup: 'bytecode', 'topup-opt': 'native' };

const SUMMARY: Record<TopupCommand, string> = {
  topup: 'an MCP server over a persistent OCaml toplevel (bytecode; load takes .cma/.cmo)',
  'topup-opt': 'topup with a native-code OCaml toplevel (each phrase compiled natively; load takes .cmxs/.cmx/.cmxa)',
};

export function topupHelp(command: TopupCommand = 'topup'): string {
  return `${command} ${TOPUP_VERSION} — ${SUMMARY[command]} (protocol ${TOPUP_PROTOCOL_VERSION})

Usage:
  ${command}                   serve MCP on stdin/stdout
  ${command} --socket <path>   serve MCP on a Unix socket (mode 0600), one client at a time;
                          the toplevel and its bindings persist across reconnects
  ${command} --http [HOST:]PORT --http-token-file PATH
                          serve MCP over Streamable HTTP (sessions share the toplevel);
                          a token is always required, since topup runs code
  ${command} --help | --version

HTTP options:
${HTTP_OPTIONS_HELP}

Environment:
  TOPUP_LOG             phrase-log path (default ~/.topup/logs/session-<pid>.ml, removed at exit)
  TOPUP_CHECKPOINT_DIR  checkpoint directory (default ~/.topup/checkpoints/)
  TOPUP_XFER_DIR, TOPUP_XFER_MAX_BYTES  file transfer (see push_file/pull_file)
  TOPUP_INTERRUPT_GRACE_MS  how long an interrupted eval may take before the toplevel is
                        killed, restarted and its phrase log replayed (default 2000)
  MCP_ENGINES_LOG       error | warn | info | debug (logs go to stderr)

Needs the OCaml toolchain: apt-get install ocaml-nox ocaml-dune ocaml-findlib libfindlib-ocaml-dev
`;
}

export const TOPUP_HELP = topupHelp('topup');

export interface TopupCliOptions {
  /** The router to use (default: createSessionRouter — named local sessions and remote hosts). */
  router?: () => TopupRouter;
  /** topup (bytecode agent, the default) or topup-opt (native agent). */
  command?: TopupCommand;
}

type Mode =
  | { kind: 'stdio' }
  | { kind: 'socket'; path: string }
  | { kind: 'http'; flags: HttpCliFlags & { http: { host: string; port: number } } }
  | { kind: 'help' }
  | { kind: 'version' };

function parseArgs(argv: string[]): Mode {
  let mode: Mode = { kind: 'stdio' };
  const http: HttpCliFlags = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--help' || a === '-h') return { kind: 'help' };
    if (a === '--version' || a === '-V') return { kind: 'version' };
    const used = takeHttpOption(argv, i, http);
    if (used >= 0) {
      i = used;
      continue;
    }
    if (a === '--socket' || a.startsWith('--socket=')) {
      const path = a === '--socket' ? argv[++i] : a.slice('--socket='.length);
      if (!path) throw new UsageError('--socket needs a path, e.g. --socket ~/.topup/sockets/topup.sock');
      mode = { kind: 'socket', path };
      continue;
    }
    throw new UsageError(
      `unknown argument "${a}"; expected --socket <path>, --http [HOST:]PORT, --http-token-file PATH, --help or --version`,
    );
  }
  if (http.tokenFile !== undefined && !http.http) throw new UsageError('--http-token-file goes with --http [HOST:]PORT');
  if (http.http) {
    if (mode.kind === 'socket') throw new UsageError('choose one of --socket and --http');
    return { kind: 'http', flags: { ...http, http: http.http } };
  }
  return mode;
}

/** TOPUP_INTERRUPT_GRACE_MS: how long an interrupted eval may take before the agent is killed and replaced. */
function interruptGraceFromEnv(): number | undefined | string {
  const raw = process.env.TOPUP_INTERRUPT_GRACE_MS;
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 100 || n > 600_000) {
    return `TOPUP_INTERRUPT_GRACE_MS is "${raw}"; expected whole milliseconds between 100 and 600000`;
  }
  return n;
}

/**
 * Named local sessions run the same command as their parent: the router's default child is this
 * very script, which is right for bin/topup and bin/topup-opt, but run as `mcp-engines
 * topup-opt` the child needs that subcommand again. Remote hosts run topup-opt too unless
 * $TOPUP_REMOTE_COMMAND says otherwise.
 */
function routerDefaults(command: TopupCommand): Parameters<typeof createSessionRouter>[0] {
  if (command === 'topup') return {};
  const script = process.argv[1] ?? '';
  const viaUmbrella = /^mcp-engines(\.[cm]?[jt]s)?$/.test(basename(script));
  return {
    remoteCommand: process.env.TOPUP_REMOTE_COMMAND || 'topup-opt',
    ...(viaUmbrella ? { childCommand: { command: process.execPath, args: [...process.execArgv, script, 'topup-opt'] } } : {}),
  };
}

function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? (process.env.HOME ?? '') + path.slice(1) : path;
}

export async function runTopupCli(argv: string[], options: TopupCliOptions = {}): Promise<void> {
  const command = options.command ?? 'topup';
  let mode: Mode;
  try {
    mode = parseArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${command}: ${err.message}\n\n${topupHelp(command)}`);
    process.exitCode = err.exitCode;
    return;
  }
  if (mode.kind === 'help') {
    process.stdout.write(topupHelp(command));
    return;
  }
  if (mode.kind === 'version') {
    process.stdout.write(`${TOPUP_VERSION}\n`);
    return;
  }

  const graceMs = interruptGraceFromEnv();
  if (typeof graceMs === 'string') {
    process.stderr.write(`${command}: ${graceMs}\n`);
    process.exitCode = EXIT_USAGE;
    return;
  }
  const router = options.router ? options.router() : createSessionRouter(routerDefaults(command));
  const server = createTopupServer({
    router,
    engineOptions: {
      driver: DRIVER_OF[command],
      interruptGraceMs: graceMs,
      // The engine reads no environment of its own: TOPUP_LOG and TOPUP_CHECKPOINT_DIR land here.
      logPath: process.env.TOPUP_LOG || undefined,
      checkpointDir: process.env.TOPUP_CHECKPOINT_DIR || undefined,
    },
  });
  let listener: UnixSocketListener | StreamableHttpListener | undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await listener?.close().catch(() => {});
    await server.shutdown().catch((err: Error) => process.stderr.write(`${command}: shutdown: ${err.message}\n`));
    process.exit(code);
  };
  process.once('SIGTERM', () => void stop(0));
  process.once('SIGHUP', () => void stop(0));

  if (mode.kind === 'stdio') {
    // Ctrl-C in a terminal reaches the whole process group; on stdio the client owns our life.
    process.once('SIGINT', () => void stop(130));
    const session = await server.connect(new StdioServerTransport());
    session.onClose(() => void stop(0));
    return;
  }

  if (mode.kind === 'http') {
    try {
      listener = await serveHttpForCli({
        command,
        flags: mode.flags,
        connect: (transport) => server.connect(transport),
        requireToken: true,
      });
    } catch (err) {
      process.stderr.write(`${command}: ${(err as Error).message}\n`);
      await server.shutdown();
      process.exitCode = err instanceof UsageError ? err.exitCode : 1;
      return;
    }
    process.once('SIGINT', () => void stop(130));
    return;
  }

  const path = expandHome(mode.path);
  try {
    listener = await serveUnixSocket(path, (transport) => server.connect(transport));
  } catch (err) {
    process.stderr.write(`${command}: cannot serve on ${path}: ${(err as Error).message}\n`);
    await server.shutdown();
    process.exitCode = 1;
    return;
  }
  process.stderr.write(`${command}: serving on ${path}\n`);
  process.once('SIGINT', () => void stop(130));
}
