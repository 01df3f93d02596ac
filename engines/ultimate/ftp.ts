// File transfer with the device's FTP server through basic-ftp.
// The firmware answers 502 to EPSV/EPRT/REST/APPE/MDTM/STRU/OPTS/SITE/AUTH. basic-ftp copes on its
// own (EPSV → PASV fallback, refused OPTS/STRU ignored); this wrapper simply never offers the
// operations that need the missing commands (append, resume, modification times).
// A zero-byte STOR creates no file on the firmware, so a zero-byte upload is refused here with an
// `unsupported` error before anything is sent, instead of "succeeding" and leaving nothing behind.
import { Readable, Writable } from 'node:stream';
import { Client, FTPError, type FileInfo } from 'basic-ftp';
import { UltimateError, networkError } from './errors.js';

export interface FtpOptions {
  host: string;
  port?: number;
  /** Network password (any user name is accepted by the firmware). */
  password?: string;
  timeoutMs?: number;
}

export interface FtpEntry {
  name: string;
  type: 'file' | 'directory' | 'other';
  size: number;
}

export class UltimateFtp {
  readonly #opts: Required<Omit<FtpOptions, 'password'>> & { password: string };
  #client?: Client;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(opts: FtpOptions) {
    if (!opts.host) throw new UltimateError('bad-input', 'FTP host is required');
    this.#opts = { host: opts.host, port: opts.port ?? 21, password: opts.password ?? '', timeoutMs: opts.timeoutMs ?? 10_000 };
  }

  /** Runs one operation at a time on one control connection (FTP cannot interleave). */
  #run<T>(operation: string, fn: (c: Client) => Promise<T>): Promise<T> {
    const next = this.#queue.then(async () => {
      try {
        const c = await this.#connect(operation);
        return await fn(c);
      } catch (err) {
        // basic-ftp closes the client on timeouts and socket errors; drop it so the next call reconnects.
        if (this.#client?.closed) this.#client = undefined;
        throw mapFtpError(err, operation, this.#opts.timeoutMs);
      }
    });
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #connect(operation: string): Promise<Client> {
    if (this.#client && !this.#client.closed) return this.#client;
    const c = new Client(this.#opts.timeoutMs);
    try {
      await c.access({ host: this.#opts.host, port: this.#opts.port, user: 'ultimate', password: this.#opts.password, secure: false });
    } catch (err) {
      c.close();
      throw mapFtpError(err, operation, this.#opts.timeoutMs);
    }
    this.#client = c;
    return c;
  }

  async upload(remotePath: string, bytes: Uint8Array): Promise<{ path: string; bytes: number }> {
    checkRemotePath(remotePath);
    if (bytes.length === 0) {
      throw new UltimateError(
        'unsupported',
        `upload ${remotePath}: zero-byte files cannot be stored — the device firmware creates no file for an empty STOR`,
      );
    }
    return this.#run(`STOR ${remotePath}`, async (c) => {
      await c.uploadFrom(Readable.from([Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]), remotePath);
      return { path: remotePath, bytes: bytes.length };
    });
  }

  async download(remotePath: string, maxBytes = 16 * 1024 * 1024): Promise<Uint8Array> {
    checkRemotePath(remotePath);
    return this.#run(`RETR ${remotePath}`, async (c) => {
      const chunks: Buffer[] = [];
      let total = 0;
      const sink = new Writable({
        write(chunk: Buffer, _enc, cb) {
          total += chunk.length;
          if (total > maxBytes) cb(new UltimateError('bad-input', `download ${remotePath}: larger than the ${maxBytes}-byte limit`));
          else {
            chunks.push(chunk);
            cb();
          }
        },
      });
      await c.downloadTo(sink, remotePath);
      return new Uint8Array(Buffer.concat(chunks));
    });
  }

  async list(remoteDir = '/'): Promise<FtpEntry[]> {
    checkRemotePath(remoteDir);
    return this.#run(`LIST ${remoteDir}`, async (c) => (await c.list(remoteDir)).map(toEntry));
  }

  async remove(remotePath: string): Promise<void> {
    checkRemotePath(remotePath);
    await this.#run(`DELE ${remotePath}`, (c) => c.remove(remotePath));
  }

  async makeDirectory(remotePath: string): Promise<void> {
    checkRemotePath(remotePath);
    // basic-ftp's ensureDir would CWD around; a plain MKD is what the firmware expects.
    await this.#run(`MKD ${remotePath}`, (c) => c.send(`MKD ${remotePath}`));
  }

  async removeDirectory(remotePath: string): Promise<void> {
    checkRemotePath(remotePath);
    await this.#run(`RMD ${remotePath}`, (c) => c.send(`RMD ${remotePath}`));
  }

  async size(remotePath: string): Promise<number> {
    checkRemotePath(remotePath);
    return this.#run(`SIZE ${remotePath}`, (c) => c.size(remotePath));
  }

  async close(): Promise<void> {
    await this.#queue;
    this.#client?.close();
    this.#client = undefined;
  }
}

function toEntry(f: FileInfo): FtpEntry {
  return { name: f.name, type: f.isDirectory ? 'directory' : f.isFile ? 'file' : 'other', size: f.size };
}

function checkRemotePath(p: string): void {
  if (typeof p !== 'string' || !p.startsWith('/') || /[\r\n\0]/.test(p)) {
    throw new UltimateError(
      'bad-input',
      `remote path must be absolute (e.g. /Temp/x.prg) without control characters, got ${JSON.stringify(p)}`,
    );
  }
}

function mapFtpError(err: unknown, operation: string, timeoutMs: number): UltimateError {
  if (err instanceof UltimateError) return err;
  if (err instanceof FTPError) {
    const kind = err.code === 530 ? 'forbidden' : 'ftp';
    return new UltimateError(kind, `${operation}: ${err.message}`, { code: err.code, operation, cause: err });
  }
  const msg = (err as Error)?.message ?? '';
  if (/Timeout/i.test(msg))
    return new UltimateError('timeout', `${operation}: no answer within ${timeoutMs} ms`, { operation, cause: err });
  return networkError(err, operation, timeoutMs);
}
