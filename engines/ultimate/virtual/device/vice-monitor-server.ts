// The VICE binary monitor protocol (API 2) served over the virtual machine, so the VICE client is
// tested against a real protocol peer. As in VICE, any command stops the emulation (a 'monitor'
// hold on the clock) until EXIT (0xAA); entering the stopped state sends a register-info event and
// a STOPPED event, EXIT sends RESUMED. Checkpoints: exec checkpoints stop before the instruction at
// the address; load/store checkpoints watch the CPU's bus cycles and stop at the next instruction
// boundary (opcode and operand fetches count as loads — the bus does not say which is which).
// The text monitor (x64sc -remotemonitor) is served beside it as x64sc 3.10 does it for what the
// service uses (docs/ultimate/VICE.md): every monitor entry prints, unasked, the checkpoints hit
// (`#2 (Stop on store d7ff)  169/$0a9,  37/$25` and the `.C:0810  8D FF D7    STA $D7FF …  clock`
// line of the instruction that caused the hit) or `Main CPU: JAM at $xxxx`, then the prompt
// `(C:$pc) `; `sw` prints the CPU clock, `sw reset` zeroes it, `x` leaves the monitor. As in VICE,
// a load/store hit stops after the instruction and, when an interrupt is due then, after the
// interrupt sequence; the stop after a JAM is two cycles after its opcode fetch.
// Differences from VICE, by design: memspaces other than the main CPU answer "invalid memspace"
// (there is no drive CPU); AUTOSTART takes a path in the virtual device's file system; QUIT ends
// the monitor session (the virtual device is shared with REST and keeps running).
import net from 'node:net';
import type { MachineSeam } from '../c64/machine-seam.js';
import type { MachineClock } from '../c64/clock.js';
import {
  API_VERSION,
  EVENT_REQUEST_ID,
  FrameReader,
  ViceCommand,
  ViceError,
  ViceRegister,
  ViceResponse,
  encodeCheckpointInfo,
  encodeRegisters,
  encodeResponse,
  type CheckpointInfo,
} from '../../vice/protocol.js';
import { listenLoopback } from '../../../../common/loopback.js';
import { disassemble, instructionLength } from '../c64/disassembler.js';

export interface ViceServerOptions {
  machine: MachineSeam;
  clock: MachineClock;
  /** Resolves an AUTOSTART file name to PRG bytes (undefined when it does not exist). */
  loadFile(name: string): Uint8Array | undefined;
  host?: string;
  port?: number;
  /** The text monitor's port (x64sc -remotemonitoraddress); absent: no text monitor. */
  textPort?: number;
}

/** What the text monitor says about one checkpoint hit. */
interface TextHit {
  checkpoint: CheckpointInfo;
  /** The address the hit happened at, and the instruction that caused it. */
  address: number;
  instructionPc: number;
}

interface RequestFrame {
  requestId: number;
  command: number;
  body: Buffer;
  api: number;
}

/** ASCII to PETSCII for keyboard feed: letters to upper case, newline to RETURN. */
function toPetscii(text: string): number[] {
  return [...text].map((c) => (c === '\n' ? 13 : c.toUpperCase().charCodeAt(0) & 0xff));
}

export class ViceMonitorServer {
  readonly #server: net.Server;
  readonly #sessions = new Set<net.Socket>();
  readonly #textServer?: net.Server;
  readonly #textSessions = new Set<net.Socket>();
  /** The instruction being executed (set before each instruction while checkpoints exist). */
  #currentPc = 0;
  #currentClock = 0;
  #memHitAddress = 0;
  #memHitPc = 0;
  /** The clock the monitor shows while stopped (VICE's clock does not run in the monitor). */
  #stopClock = 0;
  #stopwatchBase = 0;
  textPort = 0;
  readonly #checkpoints = new Map<number, CheckpointInfo>();
  #nextCheckpoint = 1;
  #stopped = false;
  #hit?: CheckpointInfo;
  #memHit?: CheckpointInfo;
  #skipPc = -1;
  #jamReported = false;
  /** True while load/store checkpoints exist: the device then feeds bus cycles to watchBus(). */
  watching = false;
  port = 0;

  constructor(private readonly opts: ViceServerOptions) {
    this.#server = net.createServer((s) => this.#accept(s));
    if (opts.textPort !== undefined) this.#textServer = net.createServer((s) => this.#acceptText(s));
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** A monitor client is connected (it waits on the machine: a checkpoint, a JAM). */
  get connected(): boolean {
    return this.#sessions.size > 0 || this.#textSessions.size > 0;
  }

  /** `port` lets the device listen again on the same port after its native state (docs/ultimate/NATIVE.md). */
  async listen(port = this.opts.port): Promise<number> {
    this.port = await listenLoopback(this.#server, port, this.opts.host);
    if (this.#textServer) this.textPort = await listenLoopback(this.#textServer, this.opts.textPort, this.opts.host);
    return this.port;
  }

  async close(): Promise<void> {
    for (const s of this.#sessions) s.destroy();
    for (const s of this.#textSessions) s.destroy();
    this.opts.machine.onExec = undefined;
    this.watching = false;
    await new Promise<void>((r) => this.#server.close(() => r()));
    const text = this.#textServer;
    if (text?.listening) await new Promise<void>((r) => text.close(() => r()));
  }

  // ---- hooks called by the device ----

  /** Bus-cycle watch for load/store checkpoints (called only while `watching`). */
  watchBus(entry: number): void {
    if (this.#memHit) return;
    const flags = entry >>> 24;
    const op = (flags & 0x91) === 0x91 ? 0x01 : (flags & 0x81) === 0x80 ? 0x02 : 0;
    if (!op) return;
    const addr = entry & 0xffff;
    for (const c of this.#checkpoints.values()) {
      if (c.enabled && c.op & op && addr >= c.start && addr <= c.end) {
        c.hitCount++;
        if (c.stopWhenHit) {
          this.#memHit = c;
          this.#memHitAddress = addr;
          this.#memHitPc = this.#currentPc;
          return;
        }
      }
    }
  }

  /** Called by the clock after every slice: turns a checkpoint hit or a jam into a stop. */
  afterSlice(): void {
    const m = this.opts.machine;
    if (this.#hit) {
      const hit = this.#hit;
      this.#hit = undefined;
      if (hit.temporary) {
        this.#checkpoints.delete(hit.number);
        this.#installHooks();
      }
      this.#stopClock = m.cpu.cycles;
      this.#enterStopped({ ...hit, currentlyHit: true }, false, this.#hitText);
    } else if (m.cpu.jammed && !this.#jamReported && this.#sessions.size + this.#textSessions.size > 0) {
      this.#jamReported = true;
      // VICE opens the monitor two cycles after the JAM's opcode fetch; this machine's clock ran on.
      this.#stopClock = m.cpu.pc === this.#currentPc ? this.#currentClock + 2 : m.cpu.cycles;
      this.#enterStopped(undefined, true);
    }
    if (!m.cpu.jammed) this.#jamReported = false;
  }

  #onExec = (pc: number): boolean => {
    const cpu = this.opts.machine.cpu;
    // VICE takes an interrupt that is due before it opens the monitor for a load/store hit.
    if (this.#memHit && this.#skipPc < 0 && (cpu.nmiPending || ((cpu.irqLines ?? 0) !== 0 && (cpu.p & 0x04) === 0))) return false;
    this.#currentPc = pc;
    this.#currentClock = cpu.cycles;
    if (this.#skipPc >= 0) {
      // The first instruction after a resume or step is the one we stopped before: run it.
      const skip = pc === this.#skipPc;
      this.#skipPc = -1;
      if (skip) return false;
    }
    if (this.#memHit) {
      this.#hit = this.#memHit;
      this.#hitText = { checkpoint: this.#memHit, address: this.#memHitAddress, instructionPc: this.#memHitPc };
      this.#memHit = undefined;
      return true;
    }
    for (const c of this.#checkpoints.values()) {
      if (c.enabled && c.op & 0x04 && pc >= c.start && pc <= c.end) {
        c.hitCount++;
        if (c.stopWhenHit) {
          this.#hit = c;
          this.#hitText = { checkpoint: c, address: pc, instructionPc: pc };
          return true;
        }
      }
    }
    return false;
  };

  #hitText?: TextHit;

  #installHooks(): void {
    const any = this.#checkpoints.size > 0;
    this.watching = [...this.#checkpoints.values()].some((c) => c.op & 0x03);
    this.opts.machine.onExec = any ? this.#onExec : undefined;
  }

  // ---- stop / resume ----

  #broadcast(frame: Buffer): void {
    for (const s of this.#sessions) if (!s.destroyed) s.write(frame);
  }

  #registersBody(): Buffer {
    const m = this.opts.machine;
    const c = m.cpu;
    return encodeRegisters([
      { id: ViceRegister.PC, value: c.pc },
      { id: ViceRegister.A, value: c.a },
      { id: ViceRegister.X, value: c.x },
      { id: ViceRegister.Y, value: c.y },
      { id: ViceRegister.SP, value: c.sp },
      { id: ViceRegister.ZERO, value: m.peek(0) },
      { id: ViceRegister.ONE, value: m.peek(1) },
      { id: ViceRegister.FL, value: c.p },
      { id: ViceRegister.LIN, value: m.rasterLine() },
      { id: ViceRegister.CYC, value: c.cycles % 63 },
    ]);
  }

  #pcBody(): Buffer {
    const b = Buffer.alloc(2);
    b.writeUInt16LE(this.opts.machine.cpu.pc & 0xffff, 0);
    return b;
  }

  #enterStopped(hit?: CheckpointInfo, jam = false, text?: TextHit): void {
    const wasStopped = this.#stopped;
    this.#stopped = true;
    if (!wasStopped && !hit && !jam) this.#stopClock = this.opts.machine.cpu.cycles;
    this.opts.clock.hold('monitor');
    if (!wasStopped || hit || jam) this.#textEntry(text, jam);
    if (hit) this.#broadcast(encodeResponse(ViceResponse.checkpointInfo, 0, EVENT_REQUEST_ID, encodeCheckpointInfo(hit)));
    if (wasStopped && !hit && !jam) return;
    // VICE's monitor_binary_ui_jam_dialog sends the JAM event with an empty body (it computes the
    // PC but does not send it); the monitor then opens as for any stop.
    if (jam) this.#broadcast(encodeResponse(ViceResponse.jam, 0, EVENT_REQUEST_ID));
    this.#broadcast(encodeResponse(ViceResponse.registerInfo, 0, EVENT_REQUEST_ID, this.#registersBody()));
    this.#broadcast(encodeResponse(ViceResponse.stopped, 0, EVENT_REQUEST_ID, this.#pcBody()));
  }

  // ---- the text monitor ----

  #textWrite(text: string): void {
    for (const s of this.#textSessions) if (!s.destroyed) s.write(text, 'latin1');
  }

  #prompt(): string {
    return `(C:$${(this.opts.machine.cpu.pc & 0xffff).toString(16).padStart(4, '0')}) `;
  }

  /** What x64sc prints on the text monitor when the monitor opens. */
  #textEntry(hit: TextHit | undefined, jam: boolean): void {
    if (this.#textSessions.size === 0) return;
    const m = this.opts.machine;
    let out = '';
    if (jam) out += `An error occurred:    Main CPU: JAM at $${(m.cpu.pc & 0xffff).toString(16).toUpperCase().padStart(4, '0')}   \n`;
    if (hit) {
      const c = hit.checkpoint;
      const op = c.op & 0x04 && hit.address === hit.instructionPc ? 'exec' : c.op & 0x02 ? 'store' : 'load';
      const line = m.rasterLine();
      const cycle = m.cpu.cycles % 63;
      out += `#${c.number} (Stop on ${op.padStart(5)} ${hit.address.toString(16).padStart(4, '0')}) ${String(line).padStart(4)}/$${line
        .toString(16)
        .padStart(3, '0')}, ${String(cycle).padStart(3)}/$${cycle.toString(16).padStart(2, '0')}\n`;
      const len = instructionLength(m.peek(hit.instructionPc));
      const bytes = Array.from({ length: len }, (_, i) => m.peek((hit.instructionPc + i) & 0xffff));
      const hex2 = (v: number) => v.toString(16).toUpperCase().padStart(2, '0');
      const p = m.cpu.p;
      const flags = 'NV-BDIZC'
        .split('')
        .map((f, i) => (f === '-' ? '-' : p & (0x80 >> i) ? f : '.'))
        .join('');
      out += `.C:${hit.instructionPc.toString(16).padStart(4, '0')}  ${bytes.map(hex2).join(' ').padEnd(12)}${disassemble(hit.instructionPc, bytes).padEnd(15)}- A:${hex2(
        m.cpu.a,
      )} X:${hex2(m.cpu.x)} Y:${hex2(m.cpu.y)} SP:${m.cpu.sp.toString(16).padStart(2, '0')} ${flags} ${String(this.#stopClock - this.#stopwatchBase).padStart(10)}\n`;
    }
    this.#textWrite(out + this.#prompt());
  }

  #acceptText(s: net.Socket): void {
    this.#textSessions.add(s);
    s.setNoDelay(true);
    s.setEncoding('latin1');
    let buf = '';
    s.on('data', (chunk: string) => {
      buf += chunk;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        this.#textCommand(s, line);
      }
      if (buf.length > 4096) buf = '';
    });
    s.on('error', () => undefined);
    s.on('close', () => {
      this.#textSessions.delete(s);
      if (this.#sessions.size === 0 && this.#textSessions.size === 0 && this.#stopped) this.#resume();
    });
  }

  #textCommand(s: net.Socket, line: string): void {
    // A command to a running machine opens the monitor first, as in VICE.
    if (!this.#stopped) this.#enterStopped();
    const [cmd = '', arg = ''] = line.split(/\s+/);
    switch (cmd.toLowerCase()) {
      case '':
        s.write(this.#prompt());
        return;
      case 'sw':
        if (arg.toLowerCase() === 'reset') {
          this.#stopwatchBase = this.#stopClock;
          s.write(this.#prompt());
        } else {
          s.write(`Stopwatch: ${String(this.#stopClock - this.#stopwatchBase).padStart(10)}\n${this.#prompt()}`);
        }
        return;
      case 'x':
      case 'exit':
        this.#resume();
        return;
      default:
        s.write(`ERROR -- Unrecognized command '${cmd}'.\n${this.#prompt()}`);
    }
  }

  #resume(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#skipPc = this.opts.machine.cpu.pc;
    this.#broadcast(encodeResponse(ViceResponse.resumed, 0, EVENT_REQUEST_ID, this.#pcBody()));
    this.opts.clock.release('monitor');
  }

  // ---- sessions ----

  #accept(s: net.Socket): void {
    this.#sessions.add(s);
    s.setNoDelay(true);
    const reader = new FrameReader<RequestFrame>('request', 1024 * 1024);
    s.on('data', (chunk: Buffer) => {
      let frames: RequestFrame[];
      try {
        frames = reader.push(chunk);
      } catch {
        s.destroy();
        return;
      }
      for (const f of frames) {
        try {
          this.#handle(s, f);
        } catch {
          // VICE answers every error with response type 0x00 (monitor_binary_error).
          s.write(encodeResponse(0x00, ViceError.generalFailure, f.requestId));
        }
      }
    });
    s.on('error', () => undefined);
    s.on('close', () => {
      this.#sessions.delete(s);
      // The last monitor gone: nobody can send EXIT any more, so let the machine run.
      if (this.#sessions.size === 0 && this.#stopped) {
        this.#stopped = false;
        this.#skipPc = this.opts.machine.cpu.pc;
        this.opts.clock.release('monitor');
      }
    });
  }

  #handle(s: net.Socket, f: RequestFrame): void {
    const reply = (type: number, body?: Uint8Array, error: number = ViceError.ok): void => {
      s.write(encodeResponse(type, error, f.requestId, body));
    };
    // VICE's monitor_binary_error answers with response type 0x00, not the command's type.
    const err = (code: number): void => reply(0x00, undefined, code);
    // An API version VICE does not know is skipped without an answer (monitor_binary_get_command_line).
    if (f.api !== API_VERSION && f.api !== 0x01) return;
    const m = this.opts.machine;
    const b = f.body;
    if (!this.#stopped && f.command !== ViceCommand.exit) this.#enterStopped();

    switch (f.command) {
      case ViceCommand.ping:
        reply(f.command);
        return;
      case ViceCommand.exit:
        reply(f.command);
        this.#resume();
        return;
      case ViceCommand.quit:
        reply(f.command);
        this.#resume();
        s.end();
        return;
      case ViceCommand.memoryGet: {
        if (b.length < 8) {
          err(ViceError.invalidLength);
          return;
        }
        const start = b.readUInt16LE(1),
          end = b.readUInt16LE(3);
        if (start > end) {
          err(ViceError.invalidParameter);
          return;
        }
        if (b[5] !== 0) {
          err(ViceError.invalidMemspace);
          return;
        }
        const len = end - start + 1;
        const out = Buffer.alloc(2 + len);
        out.writeUInt16LE(len & 0xffff, 0);
        // Bank 1 is x64sc's "ram" (the RAM under the ROMs and I/O); any other bank reads as the CPU sees.
        const ramBank = b.readUInt16LE(6) === 1;
        for (let i = 0; i < len; i++) out[2 + i] = ramBank ? (m.ram[start + i] ?? 0) : m.peek(start + i);
        reply(f.command, out);
        return;
      }
      case ViceCommand.memorySet: {
        if (b.length < 8) {
          err(ViceError.invalidLength);
          return;
        }
        const start = b.readUInt16LE(1),
          end = b.readUInt16LE(3);
        if (start > end) {
          err(ViceError.invalidParameter);
          return;
        }
        if (b[5] !== 0) {
          err(ViceError.invalidMemspace);
          return;
        }
        const len = end - start + 1;
        if (b.length < 8 + len) {
          err(ViceError.invalidLength);
          return;
        }
        for (let i = 0; i < len; i++) m.poke(start + i, b[8 + i]!);
        reply(f.command);
        return;
      }
      case ViceCommand.checkpointSet: {
        if (b.length < 8) {
          err(ViceError.invalidLength);
          return;
        }
        if (b.length >= 9 && b[8] !== 0) {
          err(ViceError.invalidMemspace);
          return;
        }
        const start = b.readUInt16LE(0),
          end = b.readUInt16LE(2);
        if (start > end || (b[6]! & 0x07) === 0) {
          err(ViceError.invalidParameter);
          return;
        }
        const c: CheckpointInfo = {
          number: this.#nextCheckpoint++,
          currentlyHit: false,
          start,
          end,
          stopWhenHit: b[4] !== 0,
          enabled: b[5] !== 0,
          op: b[6]! & 0x07,
          temporary: b[7] !== 0,
          hitCount: 0,
          ignoreCount: 0,
          hasCondition: false,
          memspace: 0,
        };
        this.#checkpoints.set(c.number, c);
        this.#installHooks();
        reply(ViceResponse.checkpointInfo, encodeCheckpointInfo(c));
        return;
      }
      case ViceCommand.checkpointGet: {
        if (b.length < 4) {
          err(ViceError.invalidLength);
          return;
        }
        const c = this.#checkpoints.get(b.readUInt32LE(0));
        if (c) reply(ViceResponse.checkpointInfo, encodeCheckpointInfo(c));
        else err(ViceError.objectMissing);
        return;
      }
      case ViceCommand.checkpointDelete: {
        if (b.length < 4) {
          err(ViceError.invalidLength);
          return;
        }
        if (!this.#checkpoints.delete(b.readUInt32LE(0))) {
          err(ViceError.objectMissing);
          return;
        }
        this.#installHooks();
        reply(f.command);
        return;
      }
      case ViceCommand.checkpointToggle: {
        if (b.length < 5) {
          err(ViceError.invalidLength);
          return;
        }
        const c = this.#checkpoints.get(b.readUInt32LE(0));
        if (!c) {
          err(ViceError.objectMissing);
          return;
        }
        c.enabled = b[4] !== 0;
        reply(f.command);
        return;
      }
      case ViceCommand.checkpointList: {
        for (const c of this.#checkpoints.values()) reply(ViceResponse.checkpointInfo, encodeCheckpointInfo(c));
        const n = Buffer.alloc(4);
        n.writeUInt32LE(this.#checkpoints.size, 0);
        reply(f.command, n);
        return;
      }
      case ViceCommand.registersGet: {
        if (b.length < 1) {
          err(ViceError.invalidLength);
          return;
        }
        if (b[0] !== 0) {
          err(ViceError.invalidMemspace);
          return;
        }
        reply(ViceResponse.registerInfo, this.#registersBody());
        return;
      }
      case ViceCommand.registersSet: {
        if (b.length < 3) {
          err(ViceError.invalidLength);
          return;
        }
        if (b[0] !== 0) {
          err(ViceError.invalidMemspace);
          return;
        }
        const count = b.readUInt16LE(1);
        const items: Array<[number, number]> = [];
        let at = 3;
        for (let i = 0; i < count; i++) {
          if (at + 4 > b.length) {
            err(ViceError.invalidLength);
            return;
          }
          const size = b[at]!;
          if (size < 3) {
            err(ViceError.invalidParameter);
            return;
          }
          items.push([b[at + 1]!, b.readUInt16LE(at + 2)]);
          at += size + 1;
        }
        const known = new Set<number>([
          ViceRegister.A,
          ViceRegister.X,
          ViceRegister.Y,
          ViceRegister.PC,
          ViceRegister.SP,
          ViceRegister.FL,
          ViceRegister.ZERO,
          ViceRegister.ONE,
        ]);
        if (items.some(([id]) => !known.has(id))) {
          err(ViceError.objectMissing);
          return;
        }
        for (const [id, v] of items) {
          if (id === ViceRegister.A) m.cpu.a = v & 0xff;
          else if (id === ViceRegister.X) m.cpu.x = v & 0xff;
          else if (id === ViceRegister.Y) m.cpu.y = v & 0xff;
          else if (id === ViceRegister.PC) m.cpu.pc = v & 0xffff;
          else if (id === ViceRegister.SP) m.cpu.sp = v & 0xff;
          else if (id === ViceRegister.FL) m.cpu.p = v & 0xff;
          else if (id === ViceRegister.ZERO) m.poke(0, v & 0xff);
          else if (id === ViceRegister.ONE) m.poke(1, v & 0xff);
        }
        reply(ViceResponse.registerInfo, this.#registersBody());
        return;
      }
      case ViceCommand.advanceInstructions: {
        if (b.length < 3) {
          err(ViceError.invalidLength);
          return;
        }
        const stepOver = b[0] !== 0;
        const count = b.readUInt16LE(1);
        reply(f.command);
        // VICE leaves the monitor to step (RESUMED) and opens it again after (REGISTER_INFO + STOPPED).
        this.#broadcast(encodeResponse(ViceResponse.resumed, 0, EVENT_REQUEST_ID, this.#pcBody()));
        this.#step(count, stepOver);
        this.#broadcast(encodeResponse(ViceResponse.registerInfo, 0, EVENT_REQUEST_ID, this.#registersBody()));
        this.#broadcast(encodeResponse(ViceResponse.stopped, 0, EVENT_REQUEST_ID, this.#pcBody()));
        return;
      }
      case ViceCommand.keyboardFeed: {
        if (b.length < 1 || b.length < 1 + b[0]!) {
          err(ViceError.invalidLength);
          return;
        }
        try {
          m.typeKeys(toPetscii(b.subarray(1, 1 + b[0]!).toString('latin1')));
        } catch {
          err(ViceError.invalidParameter);
          return;
        }
        reply(f.command);
        return;
      }
      case ViceCommand.reset: {
        // 0 soft reset (RAM kept), 1 hard reset (power cycle: RAM cleared), 8-11 a drive (none here).
        const type = b.length >= 1 ? b[0]! : 0;
        if (type === 1) m.ram.fill(0);
        if (type === 0 || type === 1) m.reset();
        else if (type < 8 || type > 11) {
          err(ViceError.invalidParameter);
          return;
        }
        reply(f.command);
        return;
      }
      case ViceCommand.autostart: {
        if (b.length < 4 || b.length < 4 + b[3]!) {
          err(ViceError.invalidLength);
          return;
        }
        const name = b.subarray(4, 4 + b[3]!).toString('utf8');
        const bytes = this.opts.loadFile(name);
        if (!bytes) {
          err(ViceError.objectMissing);
          return;
        }
        try {
          if (b[0] !== 0) m.runPrg(bytes);
          else m.loadPrg(bytes);
        } catch {
          err(ViceError.invalidParameter);
          return;
        }
        reply(f.command);
        if (b[0] !== 0) this.#resume();
        return;
      }
      default: {
        err(ViceError.unknownCommand);
        return;
      }
    }
  }

  /** Executes instructions with the hooks off (a step never stops on its own checkpoint). */
  #step(count: number, stepOver: boolean): void {
    const m = this.opts.machine;
    const hook = m.onExec;
    m.onExec = undefined;
    try {
      for (let i = 0; i < count && !m.cpu.jammed; i++) {
        const pc = m.cpu.pc;
        if (stepOver && m.peek(pc) === 0x20) {
          const ret = (pc + 3) & 0xffff;
          let budget = 2_000_000;
          do {
            budget -= this.#stepOne();
          } while (m.cpu.pc !== ret && budget > 0 && !m.cpu.jammed);
        } else {
          this.#stepOne();
        }
      }
    } finally {
      m.onExec = hook;
      this.#memHit = undefined;
      this.#skipPc = m.cpu.pc;
    }
  }

  #stepOne(): number {
    const n = this.opts.machine.stepInstruction();
    this.opts.clock.executed += n;
    return Math.max(1, n);
  }
}
