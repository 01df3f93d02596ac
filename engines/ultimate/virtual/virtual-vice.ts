// `ultimate-tool virtual-vice`: the virtual C64 (engines/ultimate/virtual/machine.ts) exposing ONLY
// the VICE binary monitor, started the way x64sc is (`-binarymonitor -binarymonitoraddress
// ip4://127.0.0.1:6502`), so the service's vice target drives it exactly as it drives a real
// x64sc. AUTOSTART names a file on this machine's file system, as with VICE.
import { readFileSync, statSync } from 'node:fs';
import { UsageError } from '../../../common/index.js';
import { MachineClock } from './clock.js';
import { C64Machine } from './machine.js';
import type { MachineSeam } from './machine-seam.js';
import { ViceMonitorServer } from './vice-monitor-server.js';

export const VIRTUAL_VICE_USAGE = `usage: ultimate-tool virtual-vice -binarymonitor [-binarymonitoraddress ip4://127.0.0.1:PORT] [options]

A virtual C64 (an emulation, not VICE) that speaks only the VICE binary monitor, started with the
x64sc flags the service uses:

  -binarymonitor                 enable the binary monitor (required: it is the only interface)
  -binarymonitoraddress ADDR     ip4://127.0.0.1:PORT or 127.0.0.1:PORT (default ip4://127.0.0.1:6502);
                                 loopback only
  -warp                          run as fast as the host allows (default: PAL real time)
  -default, -silent, +sound, -sounddev NAME, -console
                                 accepted for x64sc compatibility; they change nothing here
  --help                         this text

It exits on SIGINT/SIGTERM and when the process that started it goes away.`;

export interface VirtualViceOptions {
  host: string;
  port: number;
  warp: boolean;
}

export function parseVirtualViceArgs(argv: string[]): VirtualViceOptions | 'help' {
  let monitor = false;
  let host = '127.0.0.1';
  let port = 6502;
  let warp = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    switch (a) {
      case '--help':
      case '-help':
      case '-h':
        return 'help';
      case '-binarymonitor':
        monitor = true;
        break;
      case '-binarymonitoraddress': {
        const v = argv[++i];
        const m = v === undefined ? null : /^(?:ip4:\/\/)?(127\.\d{1,3}\.\d{1,3}\.\d{1,3}):(\d{1,5})$/.exec(v);
        if (!m)
          throw new UsageError(`-binarymonitoraddress expects ip4://127.0.0.1:PORT (loopback only), got ${JSON.stringify(v ?? null)}`);
        host = m[1]!;
        port = Number(m[2]);
        if (port > 65535) throw new UsageError(`-binarymonitoraddress port must be 0..65535, got ${port}`);
        break;
      }
      case '-warp':
        warp = true;
        break;
      case '-default':
      case '-silent':
      case '+sound':
      case '-console':
        break;
      case '-sounddev':
        i++;
        break;
      default:
        throw new UsageError(`unknown option ${JSON.stringify(a)} (virtual-vice accepts the x64sc flags listed in --help)`);
    }
  }
  if (!monitor) throw new UsageError('-binarymonitor is required: the binary monitor is the only interface of virtual-vice');
  return { host, port, warp };
}

export interface RunningVirtualVice {
  port: number;
  machine: MachineSeam;
  stop(): Promise<void>;
}

export async function startVirtualVice(opts: VirtualViceOptions): Promise<RunningVirtualVice> {
  let server: ViceMonitorServer | undefined;
  const machine = new C64Machine({
    onBusCycle: (entry: number) => {
      if (server?.watching) server.watchBus(entry);
    },
  });
  machine.reset();
  const seam = machine as unknown as MachineSeam;
  const clock = new MachineClock(seam, { speed: opts.warp ? 'max' : 1, afterSlice: () => server?.afterSlice() });
  server = new ViceMonitorServer({
    machine: seam,
    clock,
    host: opts.host,
    port: opts.port,
    loadFile: (name) => {
      try {
        if (statSync(name).size > 65536 + 2) return undefined;
        return new Uint8Array(readFileSync(name));
      } catch {
        return undefined;
      }
    },
  });
  const port = await server.listen();
  clock.start();
  const s = server;
  return {
    port,
    machine: seam,
    async stop() {
      clock.stop();
      await s.close();
    },
  };
}

/** The CLI: resolves with the exit status once stopped. */
export async function runVirtualViceCli(argv: string[]): Promise<number> {
  let parsed: VirtualViceOptions | 'help';
  try {
    parsed = parseVirtualViceArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`ultimate-tool virtual-vice: ${e.message}\n${VIRTUAL_VICE_USAGE}\n`);
      return e.exitCode;
    }
    throw e;
  }
  if (parsed === 'help') {
    process.stdout.write(`${VIRTUAL_VICE_USAGE}\n`);
    return 0;
  }
  let vice: RunningVirtualVice;
  try {
    vice = await startVirtualVice(parsed);
  } catch (e) {
    process.stderr.write(`ultimate-tool virtual-vice: cannot start: ${(e as Error).message}\n`);
    return 1;
  }
  process.stderr.write(`virtual-vice (an emulation, not VICE): binary monitor on ${parsed.host}:${vice.port}\n`);
  await new Promise<void>((resolve) => {
    const parent = process.ppid;
    // A launcher killed with SIGKILL cannot stop us; notice that our parent is gone instead.
    const done = () => {
      clearInterval(watch);
      resolve();
    };
    const watch = setInterval(() => {
      if (process.ppid !== parent) done();
    }, 500);
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  await vice.stop();
  return 0;
}
