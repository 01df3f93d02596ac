// The lab bench around a virtual Elite II, on its own loopback port: what a person testing native
// code on hardware has beside the device — a serial console on the UART and a switchable power
// outlet. It is NOT one of the device's interfaces (those are gone while native code runs); tests
// and tools use it in place of a USB-serial cable and a power cycle.
//   GET  /bench/state                 → {"state": NativeState, "last_run": NativeRunReport|null}
//   GET  /bench/uart                  → the current (or last) run's UART output, text/plain latin1
//   GET  /bench/wait-stopped?timeout_ms=N → the run's report once it has stopped (long poll, ≤ 60 s)
//   POST /bench/power-cycle           → recovers the device, then answers {"state": ...}
import http from 'node:http';
import type net from 'node:net';
import { closeServer, listenLoopback } from '../../../../common/loopback.js';
import { stepsFor } from '../device/step-watch.js';
import type { NativeRunReport, NativeState } from './native-mode.js';

export interface BenchDevice {
  readonly nativeState: NativeState;
  readonly lastNativeRun: NativeRunReport | undefined;
  whenNativeStopped(): Promise<NativeRunReport>;
  recover(): Promise<void>;
}

const MAX_WAIT_MS = 60_000;

export class BenchPort {
  readonly #server: http.Server;
  readonly #sockets = new Set<net.Socket>();
  port = 0;

  constructor(
    private readonly device: BenchDevice,
    private readonly opts: { host: string; port: number },
  ) {
    this.#server = http.createServer((req, res) => {
      req.resume();
      void this.#handle(req, res).catch((err: unknown) => this.#json(res, 500, { error: (err as Error).message }));
    });
    this.#server.on('connection', (s) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://bench');
    const route = `${req.method} ${url.pathname}`;
    switch (route) {
      case 'GET /bench/state':
        return this.#json(res, 200, { state: this.device.nativeState, last_run: this.device.lastNativeRun ?? null });
      case 'GET /bench/uart': {
        const text = this.device.lastNativeRun?.uart ?? '';
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=latin1', 'Content-Length': Buffer.byteLength(text, 'latin1') });
        res.end(Buffer.from(text, 'latin1'));
        return;
      }
      case 'GET /bench/wait-stopped': {
        await stepsFor(this.device).pass('bench-wait');
        const raw = url.searchParams.get('timeout_ms') ?? '10000';
        const timeout = Number(raw);
        if (!Number.isInteger(timeout) || timeout < 1 || timeout > MAX_WAIT_MS) {
          return this.#json(res, 400, { error: `timeout_ms ${JSON.stringify(raw)}: expected an integer 1..${MAX_WAIT_MS}` });
        }
        if (this.device.nativeState.mode !== 'native')
          return this.#json(res, 409, { error: 'no native program is loaded (the device runs its firmware)' });
        let timer: NodeJS.Timeout | undefined;
        const expired = new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), timeout);
        });
        const report = await Promise.race([this.device.whenNativeStopped(), expired]);
        clearTimeout(timer);
        if (report === 'timeout') return this.#json(res, 408, { error: `the native program was still running after ${timeout} ms` });
        return this.#json(res, 200, { run: report });
      }
      case 'POST /bench/power-cycle':
        await this.device.recover();
        return this.#json(res, 200, { state: this.device.nativeState });
      default:
        return this.#json(res, 404, {
          error: `unknown bench route ${route}; expected GET /bench/state, /bench/uart, /bench/wait-stopped or POST /bench/power-cycle`,
        });
    }
  }

  #json(res: http.ServerResponse, status: number, body: unknown): void {
    if (res.headersSent) return void res.destroy();
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  }

  async listen(): Promise<number> {
    this.port = await listenLoopback(this.#server, this.opts.port, this.opts.host);
    return this.port;
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await closeServer(this.#server);
  }
}
