// A client for VICE's text monitor served on TCP (x64sc -remotemonitor -remotemonitoraddress
// ip4://127.0.0.1:PORT), used beside the binary monitor for what the binary monitor does not say:
// the CPU clock, and which instruction triggered a checkpoint. Measured on x64sc 3.10
// (docs/ultimate/VICE.md): every time the monitor opens, VICE prints to the text monitor, unasked,
//
//   #2 (Stop on store d7ff)  169/$0a9,  37/$25                       ← checkpoint, raster line/cycle
//   .C:0810  8D FF D7    STA $D7FF      - A:01 X:00 Y:00 SP:f6 ..-..I..    4963996
//   (C:$0813)                                                           ← prompt: PC at the stop
//
// where `.C:0810` is the instruction that caused the hit (not the PC: the stop comes after it) with
// the registers after it and the CPU clock (maincpu_clk) at the stop; a JAM prints
// `An error occurred:    Main CPU: JAM at $0814`. `sw` answers `Stopwatch:    4914348`.
// The text is split into blocks at the prompts; one block per monitor entry.
import type net from 'node:net';
import { UltimateError, networkError } from '../errors.js';
import { connectTcp } from '../tcp-connect.js';

export interface TextCheckpointHit {
  number: number;
  op: 'exec' | 'load' | 'store';
  /** The address the checkpoint was hit at (the watched address for load/store). */
  address: number;
  rasterLine: number;
  rasterCycle: number;
  /** The instruction that caused the hit, its bytes, and the registers after it. */
  instructionPc: number;
  bytes: number[];
  a: number;
  x: number;
  y: number;
  sp: number;
  /** maincpu_clk when the monitor opened. */
  clock: number;
}

/** One monitor entry as the text monitor printed it. */
export interface TextMonitorBlock {
  /** The PC in the prompt that ends the block. */
  pc: number;
  hits: TextCheckpointHit[];
  /** `Main CPU: JAM at $xxxx`, when the CPU jammed. */
  jamPc: number | null;
  /** `Stopwatch: N`, when the block answers `sw`. */
  stopwatch: number | null;
  text: string;
}

const PROMPT = /\(C:\$([0-9a-fA-F]{4})\) /;
const HIT = /^#(\d+) \(Stop on\s+(exec|load|store)\s+([0-9a-fA-F]{4})\)\s+(\d+)\/\$[0-9a-fA-F]+,\s+(\d+)\/\$[0-9a-fA-F]+/;
const INSTRUCTION =
  /^\.C:([0-9a-fA-F]{4})\s+((?:[0-9A-Fa-f]{2} ){0,2}[0-9A-Fa-f]{2})\s.*- A:([0-9A-Fa-f]{2}) X:([0-9A-Fa-f]{2}) Y:([0-9A-Fa-f]{2}) SP:([0-9A-Fa-f]{2}) \S+\s+(\d+)\s*$/;

/** Parses the text of one block (everything before a prompt). */
export function parseTextMonitorBlock(text: string, pc: number): TextMonitorBlock {
  const lines = text.split(/\r?\n/);
  const hits: TextCheckpointHit[] = [];
  let jamPc: number | null = null;
  let stopwatch: number | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    const h = HIT.exec(line);
    if (h) {
      const ins = INSTRUCTION.exec((lines[i + 1] ?? '').trim());
      if (!ins) continue;
      hits.push({
        number: Number(h[1]),
        op: h[2] as TextCheckpointHit['op'],
        address: Number.parseInt(h[3]!, 16),
        rasterLine: Number(h[4]),
        rasterCycle: Number(h[5]),
        instructionPc: Number.parseInt(ins[1]!, 16),
        bytes: ins[2]!.split(' ').map((b) => Number.parseInt(b, 16)),
        a: Number.parseInt(ins[3]!, 16),
        x: Number.parseInt(ins[4]!, 16),
        y: Number.parseInt(ins[5]!, 16),
        sp: Number.parseInt(ins[6]!, 16),
        clock: Number(ins[7]),
      });
      i++;
      continue;
    }
    const jam = /JAM at \$([0-9a-fA-F]{4})/.exec(line);
    if (jam) jamPc = Number.parseInt(jam[1]!, 16);
    const sw = /^Stopwatch:\s+(\d+)/.exec(line);
    if (sw) stopwatch = Number(sw[1]);
  }
  return { pc, hits, jamPc, stopwatch, text };
}

export class ViceTextMonitor {
  readonly #socket: net.Socket;
  #buf = '';
  readonly #blocks: TextMonitorBlock[] = [];
  #wake?: () => void;
  #closed?: Error;

  private constructor(socket: net.Socket) {
    this.#socket = socket;
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.#buf += chunk;
      for (;;) {
        const m = PROMPT.exec(this.#buf);
        if (!m) break;
        this.#blocks.push(parseTextMonitorBlock(this.#buf.slice(0, m.index), Number.parseInt(m[1]!, 16)));
        this.#buf = this.#buf.slice(m.index + m[0].length);
      }
      // A runaway text without prompts would grow without bound; VICE always ends with a prompt.
      if (this.#buf.length > 1 << 20) this.#buf = this.#buf.slice(-4096);
      this.#wake?.();
    });
    socket.on('error', (e) => {
      this.#closed ??= networkError(e, 'VICE text monitor');
      this.#wake?.();
    });
    socket.on('close', () => {
      this.#closed ??= new UltimateError('network', 'VICE text monitor connection closed');
      this.#wake?.();
    });
  }

  static async connect(opts: { host?: string; port: number; timeoutMs?: number }): Promise<ViceTextMonitor> {
    const host = opts.host ?? '127.0.0.1';
    const timeoutMs = opts.timeoutMs ?? 10_000;
    const socket = await connectTcp('VICE text monitor', host, opts.port, timeoutMs);
    return new ViceTextMonitor(socket);
  }

  /** Forgets the blocks received so far (before a run starts). */
  discard(): void {
    this.#blocks.length = 0;
  }

  /** The next block that satisfies `pred` (earlier ones are dropped), or undefined at the deadline (performance.now() ms). */
  async nextBlock(deadline: number, pred: (b: TextMonitorBlock) => boolean = () => true): Promise<TextMonitorBlock | undefined> {
    for (;;) {
      while (this.#blocks.length > 0) {
        const b = this.#blocks.shift()!;
        if (pred(b)) return b;
      }
      if (this.#closed) throw this.#closed;
      const left = deadline - performance.now();
      if (left <= 0) return undefined;
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.#wake = () => {
          clearTimeout(t);
          this.#wake = undefined;
          r();
        };
      });
    }
  }

  /** `sw`: the CPU clock. Only while the monitor is open (the binary monitor has stopped the machine). */
  async stopwatch(timeoutMs = 10_000): Promise<number> {
    if (this.#closed) throw this.#closed;
    this.#socket.write('sw\n');
    // A checkpoint hit or a JAM that opened the monitor just before is kept for the next nextBlock.
    const kept: TextMonitorBlock[] = [];
    const b = await this.nextBlock(performance.now() + timeoutMs, (x) => {
      if (x.stopwatch !== null) return true;
      if (x.hits.length > 0 || x.jamPc !== null) kept.push(x);
      return false;
    });
    this.#blocks.unshift(...kept);
    if (!b || b.stopwatch === null) throw new UltimateError('timeout', `VICE text monitor: no answer to 'sw' within ${timeoutMs} ms`);
    return b.stopwatch;
  }

  close(): void {
    this.#socket.destroy();
  }
}
