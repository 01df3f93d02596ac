// UltimateDevice: one typed handle on an Ultimate 64 / Ultimate-II+ (or the virtual one), bundling
// REST, FTP, the DMA port and debug-stream capture, with probe() for the identity snapshot.
import { UltimateError } from './errors.js';
import { RestClient, type DeviceInfo, type FileSource } from './rest.js';
import { UltimateFtp } from './ftp.js';
import { DmaConnection } from './reu.js';
import { DebugStreamCapture, type CaptureSummary } from './debug-stream/capture.js';
import { productFamily, type UltimateFamily } from './product.js';

export interface UltimateDeviceOptions {
  /** Host name or IPv4 address of the device (or give `baseUrl`). */
  host?: string;
  /** REST base URL, e.g. `http://192.168.1.64` or `http://127.0.0.1:38211`; its host is used for FTP/DMA. */
  baseUrl?: string;
  /** Ports; the hardware uses 80 / 21 / 64. The virtual device reports its own. */
  httpPort?: number;
  ftpPort?: number;
  dmaPort?: number;
  /** Network password (REST `X-Password`, FTP password, DMA FF1F). */
  password?: string;
  timeoutMs?: number;
}

/** What the service pins an authorization to: identity, firmware, FPGA/core and API version. */
export interface ProbeSnapshot {
  host: string;
  apiVersion: string;
  product: string;
  firmwareVersion: string;
  fpgaVersion: string;
  coreVersion?: string;
  hostname: string;
  uniqueId?: string;
  /** True when the device says it is the virtual Ultimate 64 (never guessed from anything else). */
  virtual: boolean;
  probedAt: string;
  info: DeviceInfo;
}

export interface DebugCaptureOptions {
  file: string;
  /** Address the DEVICE should send to (this machine's address as the device sees it). */
  receiverHost: string;
  /** Local bind address (default 0.0.0.0). */
  bindAddress?: string;
  /** Local UDP port (default 11002; 0 = any free port). */
  port?: number;
  multicastGroup?: string;
  /** Local interface address for the group membership (e.g. 127.0.0.1 for the virtual device). */
  multicastInterface?: string;
  maxDatagrams: number;
  maxDurationMs: number;
  /** Stop early (the capture is still finished and valid, truncation 'none'). */
  signal?: AbortSignal;
}

export class UltimateDevice {
  readonly host: string;
  readonly rest: RestClient;
  readonly #opts: UltimateDeviceOptions;
  #ftp?: UltimateFtp;
  #family?: UltimateFamily;

  constructor(opts: UltimateDeviceOptions) {
    this.#opts = opts;
    if (opts.baseUrl !== undefined) {
      this.rest = new RestClient({ baseUrl: opts.baseUrl, password: opts.password, timeoutMs: opts.timeoutMs });
      this.host = new URL(this.rest.baseUrl).hostname.replace(/^\[|\]$/g, '');
      if (opts.host !== undefined && opts.host !== this.host) {
        throw new UltimateError('bad-input', `host ${JSON.stringify(opts.host)} and baseUrl ${opts.baseUrl} name different devices`);
      }
      return;
    }
    if (!opts.host || /[\s/]/.test(opts.host))
      throw new UltimateError('bad-input', `host must be a host name or address (or give baseUrl), got ${JSON.stringify(opts.host)}`);
    this.host = opts.host;
    const hostPart = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
    this.rest = new RestClient({
      baseUrl: `http://${hostPart}:${opts.httpPort ?? 80}`,
      password: opts.password,
      timeoutMs: opts.timeoutMs,
    });
  }

  /** The FTP session (opened on first use, closed by close()). */
  get ftp(): UltimateFtp {
    this.#ftp ??= new UltimateFtp({
      host: this.host,
      port: this.#opts.ftpPort ?? 21,
      password: this.#opts.password,
      timeoutMs: this.#opts.timeoutMs,
    });
    return this.#ftp;
  }

  /** One call: API version + info, as a snapshot to pin authorizations to. */
  async probe(): Promise<ProbeSnapshot> {
    const apiVersion = await this.rest.version();
    const info = await this.rest.info();
    for (const k of ['product', 'firmware_version', 'fpga_version', 'hostname'] as const) {
      if (typeof info[k] !== 'string') throw new UltimateError('protocol', `/v1/info lacks "${k}"`, { operation: 'GET /v1/info' });
    }
    this.#family = productFamily(info.product);
    return {
      host: this.host,
      apiVersion,
      product: info.product,
      firmwareVersion: info.firmware_version,
      fpgaVersion: info.fpga_version,
      coreVersion: info.core_version,
      hostname: info.hostname,
      uniqueId: info.unique_id,
      virtual: info.virtual === true,
      probedAt: new Date().toISOString(),
      info,
    };
  }

  /** Opens a DMA (TCP port 64) connection, authenticated when a password is configured. */
  openDma(): Promise<DmaConnection> {
    return DmaConnection.open({
      host: this.host,
      port: this.#opts.dmaPort ?? 64,
      password: this.#opts.password,
      timeoutMs: this.#opts.timeoutMs,
    });
  }

  /** Writes an image into REU memory through the DMA service; reports the bytes written. */
  async writeReu(image: Uint8Array, offset = 0): Promise<{ offset: number; bytesWritten: number; frames: number }> {
    const dma = await this.openDma();
    try {
      return await dma.writeReu(offset, image);
    } finally {
      dma.close();
    }
  }

  /**
   * Uploads a PRG (bytes) or names one on the device, and runs it: reset, DMA load, BASIC RUN
   * (a machine-code program needs a BASIC SYS stub at $0801).
   */
  runPrg(source: FileSource) {
    return this.rest.runPrg(source);
  }

  /** U64 or Ultimate-II+, from /v1/info (asked once, or known from probe()). */
  async family(): Promise<UltimateFamily> {
    this.#family ??= productFamily((await this.rest.info()).product);
    return this.#family;
  }

  /**
   * Binds a receiver, starts the debug stream toward it, waits for a bound (count or duration) or
   * the abort signal, stops the stream and finishes the capture file.
   *
   * On a U64 a running video stream is stopped first: the firmware's REST `debug:start` does not
   * stop it (only DMA FF22 does), and the two cannot run together. A failed stop of the debug
   * stream is reported (the capture file is still finished): the device may still be streaming.
   */
  async captureDebugStream(opts: DebugCaptureOptions): Promise<CaptureSummary> {
    const cap = await DebugStreamCapture.open({
      file: opts.file,
      bindAddress: opts.bindAddress,
      port: opts.port,
      multicastGroup: opts.multicastGroup,
      multicastInterface: opts.multicastInterface,
      maxDatagrams: opts.maxDatagrams,
      maxDurationMs: opts.maxDurationMs,
    });
    let started = false;
    try {
      const dest = opts.multicastGroup ? `${opts.multicastGroup}:${cap.address.port}` : `${opts.receiverHost}:${cap.address.port}`;
      if ((await this.family()) === 'u64') await this.rest.streamStop('video');
      await this.rest.streamStart('debug', dest);
      started = true;
      await new Promise<void>((resolve) => {
        if (opts.signal?.aborted) return resolve();
        const onAbort = () => resolve();
        opts.signal?.addEventListener('abort', onAbort, { once: true });
        void cap.boundReached.then(() => {
          opts.signal?.removeEventListener('abort', onAbort);
          resolve();
        });
      });
    } catch (err) {
      let stopFailure: unknown;
      if (started) await this.rest.streamStop('debug').catch((e: unknown) => (stopFailure = e));
      await cap.finish().catch(() => undefined);
      if (stopFailure !== undefined && err instanceof UltimateError) {
        throw new UltimateError(err.kind, `${err.message}; stopping the debug stream also failed: ${(stopFailure as Error).message}`, {
          status: err.status,
          deviceErrors: err.deviceErrors,
          operation: err.operation,
          cause: err,
        });
      }
      throw err;
    }
    let stopFailure: unknown;
    await this.rest.streamStop('debug').catch((e: unknown) => (stopFailure = e));
    const summary = await cap.finish();
    if (stopFailure !== undefined) {
      const e = stopFailure instanceof UltimateError ? stopFailure : undefined;
      throw new UltimateError(
        e?.kind ?? 'network',
        `debug-stream capture ${summary.file} is complete (${summary.datagrams} datagrams), but stopping the stream failed — the device may still be streaming: ${(stopFailure as Error).message}`,
        { status: e?.status, deviceErrors: e?.deviceErrors, operation: 'PUT /v1/streams/debug:stop', cause: stopFailure },
      );
    }
    return summary;
  }

  async close(): Promise<void> {
    await this.#ftp?.close();
    this.#ftp = undefined;
  }
}
