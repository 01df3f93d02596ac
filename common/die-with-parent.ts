// A child process that must not outlive this one: an emulator the service keeps running (the vice
// target's pool of x64sc) would otherwise go on after `serve` is killed with SIGKILL, or crashes, and
// hold its CPU, memory and monitor ports until someone finds it. Exit handlers cannot help there (a
// killed process runs none); the kernel can: prctl(PR_SET_PDEATHSIG) signals a process when the
// thread that started it exits. Node offers no way to set it, util-linux's `setpriv --pdeathsig`
// does, and then execs the command in place (same pid, same stdio). setpriv is part of util-linux,
// an essential package on Debian. Without it (or not on Linux) the command runs as given.
import { existsSync } from 'node:fs';

const SETPRIV = '/usr/bin/setpriv';

let setprivPresent: boolean | undefined;

/**
 * `argv` wrapped so that the process is killed (SIGKILL) when this process's thread that spawns it
 * exits; `argv` itself when that cannot be arranged here. Spawn it from the main thread (a worker
 * thread's exit would end the child too).
 */
export function dieWithParent(argv: readonly [string, ...string[]]): [string, ...string[]] {
  setprivPresent ??= process.platform === 'linux' && existsSync(SETPRIV);
  return setprivPresent ? [SETPRIV, '--pdeathsig', 'KILL', '--', ...argv] : [...argv];
}
