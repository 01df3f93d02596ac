// Whether a process still runs, for tests that check nothing is left behind. A killed child stays a
// zombie until its parent (or init) reaps it, and `kill(pid, 0)` still succeeds then: /proc's state
// tells a zombie from a running process.
import { readFileSync } from 'node:fs';

/** The process exists and is not a zombie (Linux /proc). */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Waits until `pid` is gone, looking every 10 ms; false when it still runs after `withinMs`. A
 * SIGKILL is delivered at once but the kernel ends the process a moment later.
 */
export async function processGoneWithin(pid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (processAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}
