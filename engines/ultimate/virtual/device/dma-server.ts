// The DMA service (TCP port 64 on hardware), following the firmware's socket_dma.cc: frames of
// `u16 LE command (FFxx), u16 LE length, payload` — the length is 24-bit (a third byte) for
// FF0A/FF0B/FF0D; a word without FF in its high byte is skipped. Firmware 3.15 closes a connection
// that stays idle for 1 s (SO_RCVTIMEO after accept); 3.14 does not (`idleCloseMs`). FF76, FF2x
// and FF3x exist on the U64 only: a U2+ ignores them (`family`).
// With a network password, any command before a successful FF1F closes the connection; FF1F
// answers one byte (1 accepted / 0 refused — refused after a 1 s throttle, then the connection is
// closed). Implemented: DMA load/run/jump (FF01/02/09), keyboard (FF03), reset (FF04), wait (FF05),
// DMA write (FF06), REU write (FF07), KERNAL replacement (FF08), power off (FF0C, U64 only),
// identify (FF0E), debug stream on/off (FF22/FF32) and the debug register (FF76). Other commands
// are read and ignored, as the firmware ignores unknown ones.
// The receive timeout also applies inside a payload: when the rest of a payload does not arrive
// within `idleCloseMs`, the firmware's readSocket returns the short count and the command is
// performed with its declared length, the missing tail being whatever the shared load buffer held
// from earlier commands; the late bytes are then read as new commands. The payload is also capped
// at the firmware's 200 000-byte buffer (SOCKET_BUFFER_SIZE); the excess is read as commands.
import net from 'node:net';
import { parseDestination } from './debug-streamer.js';
import { closeServer, listenLoopback } from '../../../../common/loopback.js';
import type { UltimateFamily } from '../../product.js';

export interface DmaDevice {
  /** Reset, DMA-load, then READY ('none'), BASIC RUN ('run') or a jump to an address (FF09). */
  loadPrg(bytes: Uint8Array, then: 'none' | 'run' | number): void;
  writeMemory(address: number, bytes: Uint8Array): void;
  typeKeys(petscii: number[]): void;
  reset(): void;
  writeReu(offset: number, bytes: Uint8Array): void;
  identify(): string;
  debugRegister: number;
  startDebugStream(dest: { host: string; port: number }): Promise<void>;
  stopDebugStream(): void;
  /** The configured "Stream Debug to" (FF22 without a destination uses it). */
  defaultDebugDestination(): string;
  /** FF0C: the machine switched off (until a reset or a run). */
  powerOff(): void;
  /** FF08: a new 8 KiB KERNAL ROM image. */
  replaceKernal(rom: Uint8Array): void;
}

export interface DmaServerOptions {
  device: DmaDevice;
  /** Called on every chunk a client sends (the device runs unpaced while commands come). */
  onActivity?: () => void;
  password?: string;
  host?: string;
  port?: number;
  /** Delay before answering a refused password (default 1000 ms, the firmware's throttle). */
  authThrottleMs?: number;
  /** Close a connection idle this long (firmware 3.15: 1000 ms); null never (3.14). */
  idleCloseMs?: number | null;
  /** U64 (default) or Ultimate-II+: the latter ignores FF76, FF2x and FF3x. */
  family?: UltimateFamily;
  /**
   * Length of one FreeRTOS tick in ms, for FF05 and the FF22 duration. Default 5: the firmware's
   * FreeRTOSConfig.h sets configTICK_RATE_HZ to 200 (v3.14 and v3.15, every target).
   */
  tickMs?: number;
  /** How a wait of `ms` is performed (FF05, the refused-password throttle); tests observe it. */
  sleep?: (ms: number) => Promise<void>;
}

/** The firmware's load buffer (socket_dma.h SOCKET_BUFFER_SIZE): longer payloads are cut here. */
const SOCKET_BUFFER_SIZE = 200_000;

/** Commands whose length field has a third byte (socket_dma.cc). */
const LONG_LENGTH = new Set([0xff0a, 0xff0b, 0xff0d]);

/** Bytes a session may have queued while a command is still being performed. */
const MAX_PENDING_BYTES = 4 * 1024 * 1024;

class DmaSession {
  #buf: Buffer = Buffer.alloc(0);
  #authenticated: boolean;
  #chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly sock: net.Socket,
    private readonly opts: DmaServerOptions,
    /** The server's load buffer, shared by every connection as the firmware's single one is. */
    private readonly loadBuffer: Buffer,
  ) {
    this.#authenticated = !opts.password;
    this.#armIdle();
    sock.on('data', (d: Buffer) => {
      opts.onActivity?.();
      clearTimeout(this.#idleTimer);
      this.#buf = this.#buf.length ? Buffer.concat([this.#buf, d]) : d;
      // One frame is at most 65539 bytes; a client that runs far ahead of a slow command (wait,
      // refused password) is cut off instead of buffered without limit.
      if (this.#buf.length > MAX_PENDING_BYTES) {
        sock.destroy();
        return;
      }
      this.#chain = this.#chain
        .then(() => this.#process())
        .then(() => this.#armIdle())
        .catch(() => {
          sock.destroy();
        });
    });
    sock.on('error', () => undefined);
    sock.on('close', () => clearTimeout(this.#idleTimer));
  }

  #idleTimer?: NodeJS.Timeout;

  /**
   * After `idleCloseMs` without data the firmware's recv fails: waiting for a command it closes;
   * inside a payload it performs the command with what it has (see the file comment).
   */
  #armIdle(): void {
    const ms = this.opts.idleCloseMs;
    if (ms === null || ms === undefined || this.sock.destroyed) return;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      this.#chain = this.#chain
        .then(() => this.#receiveTimeout())
        .then(() => this.#armIdle())
        .catch(() => {
          this.sock.destroy();
        });
    }, ms);
  }

  async #receiveTimeout(): Promise<void> {
    const frame = this.#header();
    if (frame === undefined || frame.head + frame.len <= this.#buf.length || this.#buf.length <= frame.head) {
      // Nothing of a payload received (or not even a whole header): the recv fails, the firmware closes.
      this.sock.destroy();
      return;
    }
    const received = this.#buf.subarray(frame.head);
    this.#buf = Buffer.alloc(0);
    received.copy(this.loadBuffer, 0);
    const payload = Buffer.from(this.loadBuffer.subarray(0, frame.len));
    if (!(await this.#perform(frame.cmd, payload))) this.sock.destroy();
  }

  /** The frame header at the front of the buffer, or undefined while it is incomplete. */
  #header(): { cmd: number; head: number; len: number } | undefined {
    if (this.#buf.length < 2) return undefined;
    const cmd = this.#buf.readUInt16LE(0);
    const head = LONG_LENGTH.has(cmd) ? 5 : 4;
    if (this.#buf.length < head) return undefined;
    const len = Math.min(this.#buf.readUInt16LE(2) | (head === 5 ? this.#buf[4]! << 16 : 0), SOCKET_BUFFER_SIZE);
    return { cmd, head, len };
  }

  #sleep(ms: number): Promise<void> {
    if (this.opts.sleep) return this.opts.sleep(ms);
    return new Promise((resolve) => {
      // Unref'd and ended by the connection's close, so a long wait never keeps a process alive.
      const t = setTimeout(resolve, ms);
      t.unref();
      this.sock.once('close', () => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  async #process(): Promise<void> {
    for (;;) {
      if (this.sock.destroyed) return;
      if (this.#buf.length < 2) return;
      if ((this.#buf.readUInt16LE(0) & 0xff00) !== 0xff00) {
        this.#buf = this.#buf.subarray(2);
        continue;
      }
      const frame = this.#header();
      if (frame === undefined) return;
      const { cmd, head, len } = frame;
      if (this.#buf.length < head + len) return;
      const payload = Buffer.from(this.#buf.subarray(head, head + len));
      payload.copy(this.loadBuffer, 0);
      this.#buf = this.#buf.subarray(head + len);
      if (!(await this.#perform(cmd, payload))) {
        this.sock.destroy();
        return;
      }
    }
  }

  /** Returns false to close the connection. */
  async #perform(cmd: number, p: Buffer): Promise<boolean> {
    const dev = this.opts.device;
    if (!this.#authenticated && cmd !== 0xff1f) return false;
    const tickMs = this.opts.tickMs ?? 5;
    // U64-only commands (socket_dma.cc `#ifdef U64`): read and ignored on a U2+.
    if (this.opts.family === 'u2plus' && (cmd === 0xff76 || (cmd & 0xfff0) === 0xff20 || (cmd & 0xfff0) === 0xff30)) return true;
    switch (cmd) {
      case 0xff1f: {
        const pw = this.opts.password ?? '';
        if (!pw || p.toString('utf8') === pw) {
          this.#authenticated = true;
          this.sock.write(Uint8Array.of(1));
          return true;
        }
        await this.#sleep(this.opts.authThrottleMs ?? 1000);
        this.sock.write(Uint8Array.of(0));
        return false;
      }
      case 0xff0e: {
        const title = Buffer.from(dev.identify().slice(0, 250), 'latin1');
        this.sock.write(Buffer.concat([Uint8Array.of(title.length), title]));
        return true;
      }
      case 0xff01:
      case 0xff02:
        // Through the boot cartridge: reset, load, then READY (FF01) or BASIC RUN (FF02).
        dev.loadPrg(p, cmd === 0xff01 ? 'none' : 'run');
        return true;
      case 0xff09:
        // The jump address comes first, then the PRG (socket_dma.cc; c64_subsys.cc:635).
        if (p.length >= 2) dev.loadPrg(p.subarray(2), p[0]! | (p[1]! << 8));
        return true;
      case 0xff03:
        // Copied to $0277 whatever the length, and $C6 set to it (no check, as the firmware).
        dev.typeKeys([...p]);
        return true;
      case 0xff04:
        dev.reset();
        return true;
      case 0xff05:
        // The firmware reads the `length` payload bytes (already done) and then waits `length`
        // FreeRTOS ticks (vTaskDelay(len)): at most 65535 × 5 ms, as on hardware.
        await this.#sleep(p.length * tickMs);
        return true;
      case 0xff0c:
        // MENU_C64_POWEROFF: the U64 switches the machine off; the U2+ firmware has no power switch and ignores it.
        if (this.opts.family !== 'u2plus') dev.powerOff();
        return true;
      case 0xff06:
        if (p.length >= 2) {
          const addr = p.readUInt16LE(0);
          const data = p.subarray(2, 2 + Math.max(0, 0x10000 - addr));
          if (data.length) dev.writeMemory(addr, data);
        }
        return true;
      case 0xff07:
        if (p.length >= 3) dev.writeReu(p[0]! | (p[1]! << 8) | (p[2]! << 16), p.subarray(3));
        return true;
      case 0xff08:
        // C64::enable_kernal(buf + 2): the 8 KiB after two ignored bytes become the KERNAL ROM. The
        // firmware copies 8192 bytes whatever the length, so a short payload brings along what the
        // load buffer held before.
        dev.replaceKernal(Uint8Array.from(this.loadBuffer.subarray(2, 2 + 8192)));
        return true;
      case 0xff22: {
        // u16 duration in ticks (0 = until stopped), then an optional destination; without one the
        // configured "Stream Debug to" is used.
        const duration = p.length >= 2 ? p.readUInt16LE(0) : 0;
        const named = p.length > 2 ? p.subarray(2).toString('latin1').replace(/\0.*$/, '') : '';
        const dest = parseDestination(named || dev.defaultDebugDestination());
        if (dest) {
          await dev.startDebugStream(dest);
          if (duration > 0) setTimeout(() => dev.stopDebugStream(), duration * tickMs).unref();
        }
        return true;
      }
      case 0xff32:
        dev.stopDebugStream();
        return true;
      case 0xff76:
        this.sock.write(Uint8Array.of(dev.debugRegister & 0xff));
        if (p.length > 0) dev.debugRegister = p[0]!;
        return true;
      default:
        return true;
    }
  }
}

export class VirtualDmaServer {
  readonly #server: net.Server;
  readonly #loadBuffer = Buffer.alloc(SOCKET_BUFFER_SIZE);
  readonly #sockets = new Set<net.Socket>();
  port = 0;

  constructor(private readonly opts: DmaServerOptions) {
    this.#server = net.createServer((s) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
      s.setNoDelay(true);
      new DmaSession(s, opts, this.#loadBuffer);
    });
  }

  /** `port` lets the device listen again on the same port after its native state (docs/ultimate/NATIVE.md). */
  async listen(port = this.opts.port): Promise<number> {
    this.port = await listenLoopback(this.#server, port, this.opts.host);
    return this.port;
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await closeServer(this.#server);
  }
}
