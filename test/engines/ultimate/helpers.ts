// Shared by the Ultimate tests: a virtual device per test file, real assemblers, bounded waits.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { VirtualUltimate, type VirtualUltimateOptions } from '../../../engines/ultimate/virtual/index.js';
import { UltimateDevice } from '../../../engines/ultimate/index.js';

const run = promisify(execFile);

export interface Rig {
  virtual: VirtualUltimate;
  device: UltimateDevice;
  dir: string;
  close(): Promise<void>;
}

/** A virtual device on ephemeral loopback ports plus a client for it, and a temp dir. */
export async function startRig(opts: VirtualUltimateOptions = {}): Promise<Rig> {
  const virtual = await VirtualUltimate.start({ dmaAuthThrottleMs: 50, ...opts });
  const device = new UltimateDevice({
    host: '127.0.0.1',
    httpPort: virtual.ports.http,
    ftpPort: virtual.ports.ftp,
    dmaPort: virtual.ports.dma,
    password: opts.password,
    timeoutMs: 10_000,
  });
  const dir = await mkdtemp(join(tmpdir(), 'u2-ultimate-'));
  return {
    virtual,
    device,
    dir,
    async close() {
      await device.close();
      await virtual.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Assembles `source` with a real toolchain and returns the PRG bytes. */
export async function assemble(tool: 'acme' | '64tass' | 'cl65', source: string, dir: string, name = 'prog'): Promise<Uint8Array> {
  const ext = tool === 'cl65' ? 'c' : 'asm';
  const src = join(dir, `${name}.${ext}`);
  const out = join(dir, `${name}.prg`);
  await writeFile(src, source);
  if (tool === 'acme') await run('acme', ['--format', 'cbm', '--outfile', out, src], { cwd: dir });
  else if (tool === '64tass') await run('64tass', ['--quiet', '--cbm-prg', '-o', out, src], { cwd: dir });
  else await run('cl65', ['-t', 'c64', '-O', '-o', out, src], { cwd: dir });
  return new Uint8Array(await readFile(out));
}

/** Polls `probe` until it returns a value accepted by `done`, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T> | T, done: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await probe();
    if (done(last)) return last;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last value ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A BASIC stub `10 SYS2061` for acme, followed by the program at $080D. */
export const ACME_STUB = `* = $0801
  !byte $0b,$08,$0a,$00,$9e,$32,$30,$36,$31,$00,$00,$00
`;

/**
 * A PRG at $0801 holding the BASIC line `10 SYS2061` and then `code` at $080D — what a machine-code
 * program needs to be started by run_prg, which resets and types RUN whatever the load address.
 * `code` is assembled for $080D (absolute jumps inside it must use that base).
 */
export function basicSysPrg(code: ArrayLike<number>): Uint8Array {
  const stub = [0x01, 0x08, 0x0b, 0x08, 0x0a, 0x00, 0x9e, 0x32, 0x30, 0x36, 0x31, 0x00, 0x00, 0x00];
  return Uint8Array.from([...stub, ...Array.from(code)]);
}
