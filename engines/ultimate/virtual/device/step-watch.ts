// Test instrumentation of the virtual device for the trusted-native flow's safety tests
// (docs/ultimate/NATIVE.md): counts the steps that matter — FTP STORs and Run Update requests —
// as the DEVICE saw them, and can hold the next occurrence of a step at a fixed point (the STOR
// after its data arrived but before the file is stored and 226 is sent; a Run Update request
// before it reaches the route; a lab-bench wait-stopped request before it is answered) until the
// test releases it. With that a test can kill the service
// exactly between two steps without sleeping. Kept in a WeakMap (as fault-injection.ts) so the
// device classes carry no test-only state.
export type WatchedStep = 'ftp-stor' | 'run-update' | 'bench-wait';

export interface StepHold {
  /** Resolves when the device has reached the held step. */
  readonly reached: Promise<void>;
  /** Lets the held step go on. */
  release(): void;
}

export class StepWatch {
  /** How often the device saw each step (a held step counts when it is reached). */
  readonly counts: Record<WatchedStep, number> = { 'ftp-stor': 0, 'run-update': 0, 'bench-wait': 0 };
  readonly #holds = new Map<WatchedStep, { reach: () => void; released: Promise<void>; release: () => void }>();

  /** Holds the next occurrence of `step`. */
  hold(step: WatchedStep): StepHold {
    let reach!: () => void;
    let release!: () => void;
    const reached = new Promise<void>((r) => {
      reach = r;
    });
    const released = new Promise<void>((r) => {
      release = r;
    });
    this.#holds.set(step, { reach, released, release });
    return { reached, release };
  }

  /** Called by the device at the step; waits while the step is held. */
  async pass(step: WatchedStep): Promise<void> {
    this.counts[step]++;
    const h = this.#holds.get(step);
    if (!h) return;
    this.#holds.delete(step);
    h.reach();
    await h.released;
  }

  /** Releases every hold (a test's teardown). */
  releaseAll(): void {
    for (const h of this.#holds.values()) h.release();
    this.#holds.clear();
  }
}

const registry = new WeakMap<object, StepWatch>();

export function stepsFor(device: object): StepWatch {
  let w = registry.get(device);
  if (!w) {
    w = new StepWatch();
    registry.set(device, w);
  }
  return w;
}

/** The REST hook: a Run Update request is counted (and held) before it reaches the route. */
export async function watchRestRequest(device: object, method: string, path: string): Promise<void> {
  if (method === 'PUT' && path === '/v1/runners:run_update') await stepsFor(device).pass('run-update');
}
