// The lab bench next to a device under native test: its serial console (the RISC-V core's UART)
// and its switched power outlet — NOT one of the device's interfaces (those are gone while native
// code runs). The service reads a native run's output from it (`--bench-url`); on the virtual
// Elite II it is the device's bench port (GET /bench/wait-stopped, GET /bench/uart). Power-cycling
// is left to the person (or the test) at the bench: the service never switches power.
export interface LabBenchReport {
  status: string;
  exitCode?: number;
  uart: string;
  [k: string]: unknown;
}

export class LabBench {
  constructor(readonly url: string) {
    const u = new URL(url);
    if (u.protocol !== 'http:' || !/^127\.\d+\.\d+\.\d+$/.test(u.hostname))
      throw new Error(`lab bench URL ${url}: expected http://127.x.x.x:PORT (the bench is reached over loopback)`);
  }

  async #get(path: string, timeoutMs: number): Promise<Response> {
    return fetch(new URL(path, this.url), { signal: AbortSignal.timeout(timeoutMs) });
  }

  /**
   * Waits (≤ maxMs) for the native program to stop; the report, or 'still-running' / 'not-native'
   * (the device runs its firmware: nothing native is loaded).
   */
  async waitStopped(maxMs: number): Promise<LabBenchReport | 'still-running' | 'not-native'> {
    const res = await this.#get(`/bench/wait-stopped?timeout_ms=${Math.max(1, Math.min(60_000, maxMs))}`, maxMs + 5000);
    if (res.status === 408) return 'still-running';
    if (res.status === 409) return 'not-native';
    if (!res.ok) throw new Error(`lab bench answered ${res.status} to wait-stopped`);
    return ((await res.json()) as { run: LabBenchReport }).run;
  }

  /** The serial console's text of the current (or last) native run. */
  async uart(): Promise<string> {
    const res = await this.#get('/bench/uart', 10_000);
    if (!res.ok) throw new Error(`lab bench answered ${res.status} to uart`);
    return Buffer.from(await res.arrayBuffer()).toString('latin1');
  }
}
