// The cap on what one call's stdout and stderr may put on disk. User output goes to capture
// files (agent_core.ml: fds 1 and 2 are those files), which the kernel lets grow without bound:
// a print loop writes hundreds of MB a second, and the whole capture was then read and spilled.
// While a request runs, its agent's captures are watched; one that grows past the cap is cut
// back to the cap. The writer keeps its file offset, so what it writes next lands past a hole (a
// sparse file: the hole takes no disk), the file's size still counts every byte written, and the
// first `cap` bytes — what the answer and the spill file keep — are untouched. A program that
// floods keeps running (its timeout stops it as before); its output beyond the cap is discarded.
// Between requests the captures are still checked, less often: a process user code forked, or a
// thread, may go on writing there.
import { closeSync, fstatSync, ftruncateSync, openSync } from 'node:fs';
import { join } from 'node:path';

/** Bytes of each of stdout and stderr kept per call (16 MiB, the size of a file transfer). */
export const DEFAULT_CAPTURE_CAP = 16 * 1024 * 1024;
/** How often a running request's captures are checked: the overshoot is what is written in this time. */
const CHECK_MS = 25;
/**
 * Between requests only something user code left running (a forked child, a thread) can write;
 * it is checked less often, on a timer that does not keep the process alive.
 */
const IDLE_CHECK_MS = 250;

/** The capture files of one agent (its work dir holds `stdout` and `stderr` once it is ready). */
export class CaptureLimit {
  private fds: number[] | null = null;
  private timer: NodeJS.Timeout | undefined;
  private fast = false;

  constructor(
    private readonly dir: string,
    readonly cap: number,
  ) {}

  /** Watch closely while a request runs. */
  watch(): void {
    if (this.fast) return;
    if (!this.fds) {
      this.fds = [];
      for (const name of ['stdout', 'stderr']) {
        try {
          this.fds.push(openSync(join(this.dir, name), 'r+'));
        } catch {
          // Not there (an agent that failed at start): nothing to watch.
        }
      }
    }
    clearInterval(this.timer);
    this.fast = true;
    this.timer = setInterval(() => this.check(), CHECK_MS);
  }

  /** The request is over: a last check cuts what was written since the previous one; then idle checks. */
  unwatch(): void {
    if (!this.fast) return;
    clearInterval(this.timer);
    this.fast = false;
    this.check();
    this.timer = setInterval(() => this.check(), IDLE_CHECK_MS).unref();
  }

  private check(): void {
    for (const fd of this.fds ?? []) {
      try {
        if (fstatSync(fd).size > this.cap) ftruncateSync(fd, this.cap);
      } catch {
        // The agent's work dir is going away with it.
      }
    }
  }

  close(): void {
    this.unwatch();
    clearInterval(this.timer);
    this.timer = undefined;
    for (const fd of this.fds?.splice(0) ?? []) closeSync(fd);
  }
}
