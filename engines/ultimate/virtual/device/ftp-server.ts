// The virtual device's FTP server, modelled on the firmware's command set (ftpd.cc, 3.14 and 3.15):
// USER PASS QUIT PORT CWD CDUP PWD XPWD NLST LIST RETR STOR NOOP SYST ABOR TYPE MODE RNFR RNTO MKD
// XMKD RMD XRMD DELE SIZE PASV MLST MLSD FEAT. Anything else answers 502; before login only USER,
// PASS and QUIT are accepted (530 otherwise); PASS without USER is accepted, as on the firmware.
// Any user name; the password must equal the network password when one is set. A zero-byte STOR
// answers 226 but creates no file — the firmware's behaviour, kept so clients are tested against it.
// Passive data connections listen on the control connection's local address (loopback), on any
// free port or on a pinned range (ftp-passive-ports.ts).
import net from 'node:net';
import { posix } from 'node:path';
import { FsError, type VirtualFs } from './virtual-fs.js';
import { closeServer, listenLoopback } from '../../../../common/loopback.js';
import { type PassivePortRange, PassivePorts } from './ftp-passive-ports.js';

const BEFORE_LOGIN = new Set(['USER', 'PASS', 'QUIT']);
const MAX_LINE = 4096;

export interface FtpServerOptions {
  fs: VirtualFs;
  password?: string;
  host?: string;
  port?: number;
  /** Ports for passive data connections (inclusive range); default null: any free port. */
  passivePorts?: PassivePortRange | null;
  /** Largest single upload accepted (default 16 MiB). */
  maxUploadBytes?: number;
  /** Concurrent sessions; one more is answered 421 and closed (default 4, as firmware 3.15). */
  maxSessions?: number;
  /** Delay before a refused password is answered (default 1000 ms, the firmware's throttle). */
  badPasswordDelayMs?: number;
  /**
   * A control connection without any command this long is closed (firmware 3.15's idle reaper,
   * FTPD_CONTROL_IDLE_MS: 300 000 ms). A running transfer is not idle; null never reaps (3.14).
   */
  controlIdleMs?: number | null;
  /** Called once per STOR after its data arrived, before the file is stored and answered (step-watch.ts). */
  beforeStore?: (path: string) => Promise<void>;
  /** Called on every command (the device runs unpaced while commands come). */
  onActivity?: () => void;
}

/** How long a passive data channel waits for the client to connect (the firmware's 5 s accept timeout). */
const PASSIVE_ACCEPT_MS = 5000;

type DataChannel = { kind: 'passive'; server: net.Server; socket: Promise<net.Socket> } | { kind: 'active'; host: string; port: number };

function fsReply(err: unknown): string {
  if (err instanceof FsError) return err.code === 'full' ? `452 ${err.message}` : `550 ${err.message}`;
  return `451 ${(err as Error).message}`;
}

function unixLine(e: { name: string; dir: boolean; size: number; mtime: Date }): string {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const d = e.mtime;
  const date = `${months[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
  return `${e.dir ? 'drwxrwxrwx' : '-rw-rw-rw-'}   1 user     ftp  ${String(e.size).padStart(10, ' ')} ${date} ${e.name}`;
}

function mlsxFacts(e: { name: string; dir: boolean; size: number }): string {
  return `type=${e.dir ? 'dir' : 'file'};size=${e.size}; ${e.name}`;
}

class FtpSession {
  #cwd = '/';
  #loggedIn = false;
  #data?: DataChannel;
  #renameFrom?: string;
  #buf = '';
  #busy: Promise<void> = Promise.resolve();
  /** Commands received and not yet finished: the idle reaper leaves a running transfer alone. */
  #running = 0;
  #idleTimer?: NodeJS.Timeout;

  constructor(
    private readonly sock: net.Socket,
    private readonly opts: Required<Omit<FtpServerOptions, 'password' | 'passivePorts'>> & { password: string },
    private readonly passive: PassivePorts,
  ) {
    sock.setEncoding('latin1');
    this.#armIdle();
    sock.on('data', (chunk: string) => {
      this.#armIdle();
      this.#buf += chunk;
      if (this.#buf.length > MAX_LINE && !this.#buf.includes('\n')) {
        this.reply('500 Line too long.');
        sock.destroy();
        return;
      }
      for (let i = this.#buf.indexOf('\n'); i >= 0; i = this.#buf.indexOf('\n')) {
        const line = this.#buf.slice(0, i).replace(/\r$/, '');
        this.#buf = this.#buf.slice(i + 1);
        // Commands run one after another; a transfer finishes before the next command is read.
        this.#running++;
        this.#busy = this.#busy
          .then(() => this.handle(line))
          .catch(() => {
            this.reply('451 Local error.');
          })
          .finally(() => {
            this.#running--;
            this.#armIdle();
          });
      }
    });
    sock.on('error', () => undefined);
    sock.on('close', () => {
      clearTimeout(this.#idleTimer);
      this.closeData();
    });
    this.reply('220 Virtual Ultimate 64 FTP server (mcp-engines emulation, not hardware) ready.');
  }

  /** (Re)starts the idle reaper's count: on every received chunk and after every command. */
  #armIdle(): void {
    const ms = this.opts.controlIdleMs;
    clearTimeout(this.#idleTimer);
    if (ms === null || this.sock.destroyed) return;
    this.#idleTimer = setTimeout(() => {
      if (this.#running > 0) this.#armIdle();
      else this.sock.destroy();
    }, ms);
  }

  reply(s: string): void {
    if (!this.sock.destroyed) this.sock.write(`${s}\r\n`, 'latin1');
  }

  closeData(): void {
    const d = this.#data;
    this.#data = undefined;
    if (d?.kind === 'passive') {
      d.server.close();
      void d.socket.then(
        (s) => s.destroy(),
        () => undefined,
      );
    }
  }

  async openData(): Promise<net.Socket | undefined> {
    const d = this.#data;
    this.#data = undefined;
    if (!d) {
      this.reply('425 Use PORT or PASV first.');
      return undefined;
    }
    try {
      if (d.kind === 'passive') {
        // The accept timeout is cleared once the client connects, so a finished transfer leaves no
        // timer keeping the process alive.
        let timer: NodeJS.Timeout | undefined;
        try {
          const s = await Promise.race([
            d.socket,
            new Promise<never>((_, rej) => {
              timer = setTimeout(() => rej(new Error('timeout')), PASSIVE_ACCEPT_MS);
            }),
          ]);
          d.server.close();
          return s;
        } finally {
          clearTimeout(timer);
        }
      }
      return await new Promise<net.Socket>((resolve, reject) => {
        const s = net.connect({ host: d.host, port: d.port }, () => resolve(s));
        s.on('error', reject);
      });
    } catch {
      if (d.kind === 'passive') d.server.close();
      this.reply("425 Can't open data connection.");
      return undefined;
    }
  }

  async handle(line: string): Promise<void> {
    const sp = line.indexOf(' ');
    const cmd = (sp < 0 ? line : line.slice(0, sp)).toUpperCase();
    const arg = sp < 0 ? '' : line.slice(sp + 1);
    if (!cmd) return;
    this.opts.onActivity();
    if (!this.#loggedIn && !BEFORE_LOGIN.has(cmd)) return this.reply('530 Not logged in.');
    const fs = this.opts.fs;
    const path = () => fs.resolve(this.#cwd, arg || '.');
    switch (cmd) {
      case 'USER':
        return this.reply('331 User name okay, need password.');
      case 'PASS':
        if (this.opts.password && arg !== this.opts.password) {
          // The firmware throttles a wrong password by a second before it answers.
          await new Promise((r) => setTimeout(r, this.opts.badPasswordDelayMs));
          return this.reply('530 Login incorrect.');
        }
        this.#loggedIn = true;
        return this.reply('230 User logged in.');
      case 'QUIT':
        this.reply('221 Goodbye.');
        this.sock.end();
        return;
      case 'NOOP':
        return this.reply('200 OK.');
      case 'SYST':
        return this.reply('214 UNIX system type.');
      case 'FEAT':
        return this.reply('211-Features:\r\n MLST size*;type*;modify*\r\n MLSD\r\n211 End');
      case 'MODE':
        return this.reply(/^S$/i.test(arg) ? '200 Mode set to S.' : '504 Mode not supported.');
      case 'TYPE':
        return this.reply(/^[AI]/i.test(arg) ? `200 Type set to ${arg.toUpperCase()}.` : '504 Type not supported.');
      case 'PWD':
      case 'XPWD':
        return this.reply(`257 "${this.#cwd}" is the current directory.`);
      case 'CWD':
      case 'CDUP': {
        let target: string;
        try {
          target = cmd === 'CDUP' ? fs.resolve(this.#cwd, '..') : path();
        } catch (e) {
          return this.reply(fsReply(e));
        }
        const st = fs.stat(target);
        if (!st?.dir) return this.reply(`550 ${target}: no such directory.`);
        this.#cwd = target;
        return this.reply(`250 Directory changed to ${target}.`);
      }
      case 'PASV': {
        this.closeData();
        const server = net.createServer();
        const host = this.sock.localAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1';
        let port: number;
        try {
          port = await this.passive.listen(server, host);
        } catch (e) {
          server.close();
          return this.reply(`425 Cannot open passive data connection: ${(e as Error).message}.`);
        }
        // Bound first, then watched: a port of a pinned range that was taken must not fail the
        // channel of the port that was bound after it.
        const socket = new Promise<net.Socket>((resolve, reject) => {
          server.once('connection', (c: net.Socket) => {
            // A client that drops the data connection must not take the server down.
            c.on('error', () => undefined);
            resolve(c);
          });
          server.once('error', reject);
        });
        socket.catch(() => undefined);
        this.#data = { kind: 'passive', server, socket };
        return this.reply(`227 Entering Passive Mode (${host.split('.').join(',')},${port >> 8},${port & 0xff}).`);
      }
      case 'PORT': {
        const n = arg.split(',').map(Number);
        if (n.length !== 6 || n.some((v) => !Number.isInteger(v) || v < 0 || v > 255)) return this.reply('501 Syntax error in PORT.');
        const host = n.slice(0, 4).join('.');
        // Data connections go back to the client only (no FTP bounce to third parties).
        if (host !== this.sock.remoteAddress?.replace(/^::ffff:/, '')) return this.reply('500 Illegal PORT command.');
        this.closeData();
        this.#data = { kind: 'active', host, port: n[4]! * 256 + n[5]! };
        return this.reply('200 PORT command successful.');
      }
      case 'LIST':
      case 'NLST':
      case 'MLSD': {
        let dir: string;
        let entries: ReturnType<VirtualFs['list']>;
        const target = arg.replace(/^-\S+\s*/, '');
        try {
          dir = fs.resolve(this.#cwd, target || '.');
          const st = fs.stat(dir);
          if (st && !st.dir && cmd !== 'MLSD') entries = [{ name: posix.basename(dir), ...st }];
          else entries = fs.list(dir);
        } catch (e) {
          this.closeData();
          return this.reply(fsReply(e));
        }
        const data = await this.openData();
        if (!data) return;
        this.reply('150 Opening data connection for directory listing.');
        const text = entries.map((e) => (cmd === 'LIST' ? unixLine(e) : cmd === 'MLSD' ? mlsxFacts(e) : e.name)).join('\r\n');
        await new Promise<void>((r) => data.end(text ? `${text}\r\n` : '', 'latin1', () => r()));
        return this.reply('226 Transfer complete.');
      }
      case 'MLST': {
        try {
          const p = path();
          const st = fs.stat(p);
          if (!st) return this.reply(`550 ${p}: not found.`);
          return this.reply(`250-Listing ${p}\r\n ${mlsxFacts({ name: p, ...st })}\r\n250 End`);
        } catch (e) {
          return this.reply(fsReply(e));
        }
      }
      case 'SIZE': {
        try {
          const p = path();
          const st = fs.stat(p);
          if (!st || st.dir) return this.reply(`550 ${p}: not a plain file.`);
          return this.reply(`213 ${st.size}`);
        } catch (e) {
          return this.reply(fsReply(e));
        }
      }
      case 'RETR': {
        let bytes: Uint8Array;
        try {
          bytes = fs.read(path());
        } catch (e) {
          this.closeData();
          return this.reply(fsReply(e));
        }
        const data = await this.openData();
        if (!data) return;
        this.reply(`150 Opening BINARY data connection (${bytes.length} bytes).`);
        await new Promise<void>((r) => data.end(Buffer.from(bytes), () => r()));
        return this.reply('226 Transfer complete.');
      }
      case 'STOR': {
        let target: string;
        try {
          target = path();
        } catch (e) {
          this.closeData();
          return this.reply(fsReply(e));
        }
        const data = await this.openData();
        if (!data) return;
        this.reply('150 Ready to receive.');
        const chunks: Buffer[] = [];
        let total = 0;
        let tooBig = false;
        await new Promise<void>((resolve) => {
          data.on('data', (c: Buffer) => {
            total += c.length;
            if (total > this.opts.maxUploadBytes) {
              tooBig = true;
              data.destroy();
              resolve();
              return;
            }
            chunks.push(c);
          });
          data.on('end', () => resolve());
          data.on('close', () => resolve());
          data.on('error', () => resolve());
        });
        if (tooBig) return this.reply(`552 Upload exceeds ${this.opts.maxUploadBytes} bytes.`);
        await this.opts.beforeStore(target);
        // The firmware opens the file on the first data block: an empty upload creates nothing.
        if (total === 0) return this.reply('226 Transfer complete.');
        try {
          fs.write(target, Buffer.concat(chunks));
        } catch (e) {
          return this.reply(fsReply(e));
        }
        return this.reply('226 Transfer complete.');
      }
      case 'DELE':
        try {
          fs.remove(path());
          return this.reply('250 File deleted.');
        } catch (e) {
          return this.reply(fsReply(e));
        }
      case 'MKD':
      case 'XMKD':
        try {
          const p = path();
          fs.mkdir(p);
          return this.reply(`257 "${p}" created.`);
        } catch (e) {
          return this.reply(fsReply(e));
        }
      case 'RMD':
      case 'XRMD':
        try {
          fs.rmdir(path());
          return this.reply('250 Directory removed.');
        } catch (e) {
          return this.reply(fsReply(e));
        }
      case 'RNFR':
        try {
          const p = path();
          if (!fs.stat(p)) return this.reply(`550 ${p}: not found.`);
          this.#renameFrom = p;
          return this.reply('350 Ready for RNTO.');
        } catch (e) {
          return this.reply(fsReply(e));
        }
      case 'RNTO': {
        const from = this.#renameFrom;
        this.#renameFrom = undefined;
        if (!from) return this.reply('503 RNFR first.');
        try {
          fs.rename(from, path());
          return this.reply('250 Rename successful.');
        } catch (e) {
          return this.reply(fsReply(e));
        }
      }
      case 'ABOR':
        this.closeData();
        return this.reply('226 Abort successful.');
      default:
        return this.reply('502 Command not implemented.');
    }
  }
}

export class VirtualFtpServer {
  readonly #server: net.Server;
  readonly #sessions = new Set<net.Socket>();
  readonly #passive: PassivePorts;
  port = 0;

  constructor(private readonly opts: FtpServerOptions) {
    this.#passive = new PassivePorts(opts.passivePorts ?? null);
    const resolved = {
      fs: opts.fs,
      password: opts.password ?? '',
      host: opts.host ?? '127.0.0.1',
      port: opts.port ?? 0,
      maxUploadBytes: opts.maxUploadBytes ?? 16 * 1024 * 1024,
      maxSessions: opts.maxSessions ?? 4,
      badPasswordDelayMs: opts.badPasswordDelayMs ?? 1000,
      controlIdleMs: opts.controlIdleMs === undefined ? 300_000 : opts.controlIdleMs,
      beforeStore: opts.beforeStore ?? (async () => undefined),
      onActivity: opts.onActivity ?? (() => undefined),
    };
    this.#server = net.createServer((sock) => {
      if (this.#sessions.size >= resolved.maxSessions) {
        sock.on('error', () => undefined);
        sock.end('421 Too many FTP connections, try again later.\r\n');
        return;
      }
      this.#sessions.add(sock);
      sock.on('close', () => this.#sessions.delete(sock));
      new FtpSession(sock, resolved, this.#passive);
    });
  }

  /** Control connections open now (tests observe the idle reaper with it). */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** `port` lets the device listen again on the same port after its native state (docs/ultimate/NATIVE.md). */
  async listen(port = this.opts.port): Promise<number> {
    this.port = await listenLoopback(this.#server, port, this.opts.host);
    return this.port;
  }

  async close(): Promise<void> {
    for (const s of this.#sessions) s.destroy();
    await closeServer(this.#server);
  }
}
