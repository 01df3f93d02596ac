// The device's REST API (HTTP, port 80 on hardware): `/v1/<route>/<path>:<command>?<args>`.
// Every answer that is not 2xx becomes an UltimateError: a bare 404 is "unknown route/command",
// 403 is the password check, anything else carries the status and the device's `errors` array.
import { UltimateError, networkError } from './errors.js';

export interface RestOptions {
  /** Base URL, e.g. `http://192.168.1.64` or `http://127.0.0.1:38211`. */
  baseUrl: string;
  /** Network password; sent as `X-Password` on every request when set. */
  password?: string;
  /** Per-request timeout in ms (default 10 000). */
  timeoutMs?: number;
}

export interface DeviceInfo {
  product: string;
  firmware_version: string;
  fpga_version: string;
  core_version?: string;
  hostname: string;
  unique_id?: string;
  [extra: string]: unknown;
}

/** Every JSON answer carries `errors` (possibly empty). */
export type DeviceAnswer = Record<string, unknown> & { errors: string[] };

export type StreamKind = 'video' | 'audio' | 'debug';
export type DriveId = 'a' | 'b' | 'softiec' | (string & {});

/** Where a runner takes its file from: a path on the device, or bytes uploaded with the call. */
export type FileSource = { path: string } | { bytes: Uint8Array };

const MAX_PUT_WRITE = 128;

function hex(n: number, width: number): string {
  return n.toString(16).toUpperCase().padStart(width, '0');
}

/** Throws bad-input unless `address` is an integer 0..$FFFF. */
export function checkAddress(address: number, what = 'address'): void {
  if (!Number.isInteger(address) || address < 0 || address > 0xffff) {
    throw new UltimateError('bad-input', `${what} must be an integer from 0 to 0xFFFF, got ${address}`);
  }
}

function checkRange(address: number, length: number): void {
  checkAddress(address);
  if (!Number.isInteger(length) || length < 1 || length > 0x10000) {
    throw new UltimateError('bad-input', `length must be an integer from 1 to 65536, got ${length}`);
  }
  if (address + length > 0x10000) {
    throw new UltimateError('bad-input', `range $${hex(address, 4)}+${length} runs past $FFFF`);
  }
}

export class RestClient {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly #password?: string;

  constructor(opts: RestOptions) {
    let url: URL;
    try {
      url = new URL(opts.baseUrl);
    } catch {
      throw new UltimateError('bad-input', `baseUrl is not a URL: ${JSON.stringify(opts.baseUrl)} (expected e.g. http://192.168.1.64)`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UltimateError('bad-input', `baseUrl must be http(s), got ${url.protocol}`);
    }
    this.baseUrl = url.origin;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.#password = opts.password || undefined;
  }

  /**
   * One request. `path` is everything after the host (`/v1/machine:readmem`); query values are
   * encoded, keeping `/` readable so device paths look as they do in the firmware docs.
   */
  async request(
    method: 'GET' | 'PUT' | 'POST' | 'DELETE',
    path: string,
    opts: { query?: Record<string, string | number | undefined>; body?: Uint8Array | string; contentType?: string; binary?: boolean } = {},
  ): Promise<DeviceAnswer | Uint8Array> {
    const qs = Object.entries(opts.query ?? {})
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v)).replace(/%2F/gi, '/').replace(/%3A/gi, ':')}`)
      .join('&');
    const url = `${this.baseUrl}${path}${qs ? `?${qs}` : ''}`;
    const operation = `${method} ${path}`;
    const headers: Record<string, string> = {};
    if (this.#password) headers['X-Password'] = this.#password;
    if (opts.body !== undefined) headers['Content-Type'] = opts.contentType ?? 'application/octet-stream';
    let res: Response;
    let raw: Uint8Array;
    try {
      res = await fetch(url, {
        method,
        headers,
        body: opts.body as BodyInit | undefined,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      raw = new Uint8Array(await res.arrayBuffer());
    } catch (err) {
      throw networkError(err, operation, this.timeoutMs);
    }
    if (res.status === 404 && raw.length === 0) {
      throw new UltimateError('unknown-route', `${operation}: the device does not know this route or command (bare 404)`, {
        status: 404,
        operation,
      });
    }
    const type = res.headers.get('content-type') ?? '';
    if (res.ok && opts.binary && !type.includes('json')) return raw;
    let body: DeviceAnswer | undefined;
    try {
      const parsed = JSON.parse(new TextDecoder().decode(raw)) as Record<string, unknown>;
      const errors = Array.isArray(parsed.errors) ? parsed.errors.map(String) : [];
      body = { ...parsed, errors };
    } catch {
      body = undefined;
    }
    if (!res.ok) {
      const deviceErrors = body?.errors ?? [];
      const detail = deviceErrors.length ? deviceErrors.join('; ') : `HTTP ${res.status}`;
      const kind = res.status === 403 ? 'forbidden' : 'device';
      throw new UltimateError(kind, `${operation}: ${detail}`, { status: res.status, deviceErrors, operation });
    }
    if (!body) {
      throw new UltimateError('protocol', `${operation}: expected a JSON body, got ${raw.length} bytes of ${type || 'unknown type'}`, {
        status: res.status,
        operation,
      });
    }
    return body;
  }

  private async json(
    method: 'GET' | 'PUT' | 'POST',
    path: string,
    query?: Record<string, string | number | undefined>,
    body?: Uint8Array,
    contentType?: string,
  ): Promise<DeviceAnswer> {
    return (await this.request(method, path, { query, body, contentType })) as DeviceAnswer;
  }

  // ---- identity ----
  async version(): Promise<string> {
    const a = await this.json('GET', '/v1/version');
    return String(a.version);
  }

  async info(): Promise<DeviceInfo> {
    const a = await this.json('GET', '/v1/info');
    const { errors: _e, ...rest } = a;
    return rest as DeviceInfo;
  }

  // ---- machine ----
  reset(): Promise<DeviceAnswer> {
    return this.json('PUT', '/v1/machine:reset');
  }
  reboot(): Promise<DeviceAnswer> {
    return this.json('PUT', '/v1/machine:reboot');
  }
  pause(): Promise<DeviceAnswer> {
    return this.json('PUT', '/v1/machine:pause');
  }
  resume(): Promise<DeviceAnswer> {
    return this.json('PUT', '/v1/machine:resume');
  }
  poweroff(): Promise<DeviceAnswer> {
    return this.json('PUT', '/v1/machine:poweroff');
  }
  menuButton(): Promise<DeviceAnswer> {
    return this.json('PUT', '/v1/machine:menu_button');
  }

  /** Reads `length` bytes (1..65536) from `address`, as the CPU sees memory (DMA). */
  async readMemory(address: number, length: number): Promise<Uint8Array> {
    checkRange(address, length);
    const out = await this.request('GET', '/v1/machine:readmem', { query: { address: hex(address, 4), length }, binary: true });
    if (!(out instanceof Uint8Array)) {
      throw new UltimateError('protocol', 'readmem answered JSON instead of bytes', { operation: 'GET /v1/machine:readmem' });
    }
    if (out.length !== length) {
      throw new UltimateError('protocol', `readmem returned ${out.length} bytes, asked for ${length}`, {
        operation: 'GET /v1/machine:readmem',
      });
    }
    return out;
  }

  /** Writes bytes at `address`: PUT with hex data for ≤128 bytes, POST with a body beyond. */
  async writeMemory(address: number, bytes: Uint8Array): Promise<{ address: string; bytes: number }> {
    checkRange(address, bytes.length);
    let a: DeviceAnswer;
    if (bytes.length <= MAX_PUT_WRITE) {
      const data = Array.from(bytes, (b) => hex(b, 2)).join('');
      a = await this.json('PUT', '/v1/machine:writemem', { address: hex(address, 4), data });
    } else {
      a = await this.json('POST', '/v1/machine:writemem', { address: hex(address, 4) }, bytes);
    }
    return { address: String(a.address ?? ''), bytes: bytes.length };
  }

  /** The U64 debug register ($D7FF) as the program last wrote it. */
  async debugRegister(): Promise<number> {
    const a = await this.json('GET', '/v1/machine:debugreg');
    return parseHexByte(a.value, 'debugreg value');
  }

  async setDebugRegister(value: number): Promise<number> {
    if (!Number.isInteger(value) || value < 0 || value > 0xff) {
      throw new UltimateError('bad-input', `debug register value must be 0..255, got ${value}`);
    }
    const a = await this.json('PUT', '/v1/machine:debugreg', { value: hex(value, 2) });
    return parseHexByte(a.value, 'debugreg value');
  }

  // ---- runners ----
  private async runner(command: 'load_prg' | 'run_prg' | 'run_crt', source: FileSource): Promise<DeviceAnswer> {
    if ('path' in source) return this.json('PUT', `/v1/runners:${command}`, { file: source.path });
    if (source.bytes.length === 0) throw new UltimateError('bad-input', `${command}: the uploaded file is empty`);
    return this.json('POST', `/v1/runners:${command}`, undefined, source.bytes);
  }
  /**
   * load_prg: the device RESETS the machine, DMA-loads the file through its boot cartridge and
   * leaves it at READY. It does not load into a running program — use `writeMemory` (DMA writes)
   * for that.
   */
  loadPrg(source: FileSource): Promise<DeviceAnswer> {
    return this.runner('load_prg', source);
  }
  /**
   * run_prg: reset, DMA-load, then BASIC `RUN` whatever the load address. A machine-code program
   * must start with a BASIC `SYS` stub at $0801; one loaded elsewhere is loaded but not started.
   */
  runPrg(source: FileSource): Promise<DeviceAnswer> {
    return this.runner('run_prg', source);
  }
  runCrt(source: FileSource): Promise<DeviceAnswer> {
    return this.runner('run_crt', source);
  }

  // ---- drives ----
  drives(): Promise<DeviceAnswer> {
    return this.json('GET', '/v1/drives');
  }
  mount(drive: DriveId, image: string, opts: { type?: string; mode?: 'readwrite' | 'readonly' | 'unlinked' } = {}): Promise<DeviceAnswer> {
    return this.json('PUT', `/v1/drives/${encodeURIComponent(drive)}:mount`, { image, type: opts.type, mode: opts.mode });
  }
  driveCommand(drive: DriveId, command: 'reset' | 'remove' | 'on' | 'off'): Promise<DeviceAnswer> {
    return this.json('PUT', `/v1/drives/${encodeURIComponent(drive)}:${command}`);
  }

  // ---- configuration ----
  async configCategories(): Promise<string[]> {
    const a = await this.json('GET', '/v1/configs');
    return Array.isArray(a.categories) ? a.categories.map(String) : [];
  }
  configCategory(category: string): Promise<DeviceAnswer> {
    return this.json('GET', `/v1/configs/${encodeURIComponent(category)}`);
  }
  configItem(category: string, item: string): Promise<DeviceAnswer> {
    return this.json('GET', `/v1/configs/${encodeURIComponent(category)}/${encodeURIComponent(item)}`);
  }
  setConfigItem(category: string, item: string, value: string | number): Promise<DeviceAnswer> {
    return this.json('PUT', `/v1/configs/${encodeURIComponent(category)}/${encodeURIComponent(item)}`, { value });
  }
  /** POST a JSON object `{ category: { item: value } }` to change several items at once. */
  setConfigs(values: Record<string, Record<string, string | number>>): Promise<DeviceAnswer> {
    return this.json('POST', '/v1/configs', undefined, new TextEncoder().encode(JSON.stringify(values)), 'application/json');
  }
  saveConfigToFlash(): Promise<DeviceAnswer> {
    return this.json('PUT', '/v1/configs:save_to_flash');
  }

  // ---- streams ----
  /** Starts a U64 data stream toward `destination` (`host` or `host:port`). */
  streamStart(kind: StreamKind, destination: string): Promise<DeviceAnswer> {
    return this.json('PUT', `/v1/streams/${kind}:start`, { ip: destination });
  }
  streamStop(kind: StreamKind): Promise<DeviceAnswer> {
    return this.json('PUT', `/v1/streams/${kind}:stop`);
  }
}

function parseHexByte(v: unknown, what: string): number {
  if (typeof v !== 'string' || !/^[0-9A-Fa-f]{1,2}$/.test(v)) {
    throw new UltimateError('protocol', `${what}: expected a hex byte, got ${JSON.stringify(v)}`);
  }
  return parseInt(v, 16);
}
