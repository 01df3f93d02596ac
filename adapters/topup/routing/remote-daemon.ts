// The life cycle of a topup daemon on a remote host, driven through `sh` over an SSH connection:
// start it detached (`nohup [setsid] <command> --socket <path>`), stop it (by the pid recorded next
// to its socket, only when that process really is a `--socket` daemon), and rotate its log.
// Files next to the socket: `<socket>.pid` (the daemon's pid) and `<socket>.log` (its stderr,
// appended, rotated to `.log.1` … `.log.3`).
import { type SshConnection, shellQuote } from '../../../transports/ssh.js';

/** A daemon log above this size is rotated when a client connects (the daemon keeps appending). */
export const DAEMON_LOG_ROTATE_BYTES = 1024 * 1024;
/** Rotated generations kept: `.log.1` (newest) … `.log.3`. */
export const DAEMON_LOG_GENERATIONS = 3;

/**
 * Shell functions shared by the scripts. `stop_daemon` sends SIGTERM to the daemon's process group
 * (setsid made it a group leader, so its OCaml agents go too; without setsid only the pid), waits
 * up to 5 s, then SIGKILL. A pid whose command line does not contain `--socket` is not ours (the
 * daemon died long ago and the pid was reused): it is left alone.
 */
function prelude(socket: string): string {
  return [
    `sock=${shellQuote(socket)}`,
    'rotate_log() {',
    '  log="$sock.log"',
    '  [ -f "$log" ] || return 0',
    '  size=$(wc -c <"$log" 2>/dev/null || echo 0)',
    '  [ "$size" -gt "$1" ] || return 0',
    `  g=${DAEMON_LOG_GENERATIONS}`,
    '  while [ "$g" -gt 1 ]; do p=$((g-1)); [ -f "$log.$p" ] && mv -f "$log.$p" "$log.$g"; g=$p; done',
    // copy + truncate: the daemon appends (O_APPEND), so its next write lands at the new end.
    '  cp -p "$log" "$log.1" && : >"$log"',
    '}',
    'daemon_pid() {',
    '  [ -f "$sock.pid" ] || return 1',
    '  pid=$(cat "$sock.pid" 2>/dev/null)',
    '  case "$pid" in ""|*[!0-9]*) return 1;; esac',
    '  kill -0 "$pid" 2>/dev/null || return 1',
    '  args=$(ps -o args= -p "$pid" 2>/dev/null || tr "\\000" " " <"/proc/$pid/cmdline" 2>/dev/null)',
    '  case "$args" in *--socket*) return 0;; *) return 1;; esac',
    '}',
    'stop_daemon() {',
    '  if daemon_pid; then',
    '    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null',
    '    i=0',
    '    while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 50 ]; do sleep 0.1; i=$((i+1)); done',
    '    if kill -0 "$pid" 2>/dev/null; then',
    '      kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null',
    '      echo "KILLED $pid"',
    '    else',
    '      echo "STOPPED $pid"',
    '    fi',
    '  else',
    '    echo "NOTRUNNING"',
    '  fi',
    '  rm -f "$sock.pid"',
    '  if [ -S "$sock" ]; then rm -f "$sock"; fi',
    '}',
  ].join('\n');
}

/**
 * Stops whatever is left of an earlier daemon on this socket (a crashed or wedged one), rotates the
 * log, starts the daemon detached with its log and pid next to the socket, then waits until the
 * socket exists or the daemon dies.
 */
function startScript(remoteCommand: string, socket: string, timeoutMs: number): string {
  const polls = Math.max(1, Math.ceil(timeoutMs / 100));
  return [
    prelude(socket),
    `mkdir -p -m 700 "$(dirname "$sock")" || exit 10`,
    'stop_daemon >/dev/null',
    'rotate_log 0',
    `if command -v setsid >/dev/null 2>&1; then detach=setsid; else detach=; fi`,
    // The daemon writes its own pid file before it execs the command (same pid through nohup,
    // setsid and exec): a start script killed half-way can never leave an unrecorded daemon.
    'export sock',
    `nohup $detach sh -c ${shellQuote(`echo "$$" >"$sock.pid"; exec ${remoteCommand} --socket "$sock"`)} </dev/null >>"$sock.log" 2>&1 &`,
    'pid=$!',
    'echo "PID $pid"',
    'i=0',
    `while [ "$i" -lt ${polls} ]; do`,
    '  if [ -S "$sock" ]; then echo READY; exit 0; fi',
    '  if ! kill -0 "$pid" 2>/dev/null; then echo DIED; tail -c 4000 "$sock.log"; exit 11; fi',
    '  sleep 0.1; i=$((i+1))',
    'done',
    'echo TIMEOUT; tail -c 4000 "$sock.log"; exit 12',
  ].join('\n');
}

export type StartOutcome =
  | { kind: 'ready'; pid: number }
  | { kind: 'died' | 'timeout'; pid: number | undefined; output: string }
  | { kind: 'failed'; code: number | null; output: string };

export async function startDaemon(
  ssh: SshConnection,
  remoteCommand: string,
  socket: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<StartOutcome> {
  const res = await ssh.exec(startScript(remoteCommand, socket, timeoutMs), {
    timeoutMs: timeoutMs + 15_000,
    ...(signal ? { signal } : {}),
  });
  const pidMatch = /^PID (\d+)$/m.exec(res.stdout);
  const pid = pidMatch ? Number(pidMatch[1]) : undefined;
  const rest = res.stdout.replace(/^PID \d+\n?/m, '');
  if (res.code === 0 && rest.startsWith('READY') && pid !== undefined) return { kind: 'ready', pid };
  const output = (rest.replace(/^(DIED|TIMEOUT)\n?/, '') + res.stderr).trim();
  if (rest.startsWith('DIED')) return { kind: 'died', pid, output };
  if (rest.startsWith('TIMEOUT')) return { kind: 'timeout', pid, output };
  return { kind: 'failed', code: res.code, output };
}

export type StopOutcome = { kind: 'stopped' | 'killed'; pid: number } | { kind: 'not-running' };

/** Stop the daemon serving `socket` (SIGTERM, SIGKILL after 5 s); removes its pid and socket files. */
export async function stopDaemon(ssh: SshConnection, socket: string): Promise<StopOutcome> {
  const res = await ssh.exec(`${prelude(socket)}\nstop_daemon`, { timeoutMs: 20_000 });
  const m = /^(STOPPED|KILLED) (\d+)$/m.exec(res.stdout);
  if (m) return { kind: m[1] === 'KILLED' ? 'killed' : 'stopped', pid: Number(m[2]) };
  if (/^NOTRUNNING$/m.test(res.stdout)) return { kind: 'not-running' };
  throw new Error(`the stop command failed (exit ${res.code}): ${(res.stderr || res.stdout).trim()}`);
}

/** Rotate the daemon's log when it is over DAEMON_LOG_ROTATE_BYTES (called on every connect). */
export async function rotateDaemonLog(ssh: SshConnection, socket: string): Promise<void> {
  await ssh.exec(`${prelude(socket)}\nrotate_log ${DAEMON_LOG_ROTATE_BYTES}`, { timeoutMs: 15_000 });
}
