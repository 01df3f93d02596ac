// `ultimate-tool virtual-vice`: the virtual C64 (engines/ultimate/virtual/c64/machine.ts) exposing ONLY
// the VICE binary monitor, started the way x64sc is (`-binarymonitor -binarymonitoraddress
// ip4://127.0.0.1:6502`), so the service's vice target drives it exactly as it drives a real
// x64sc. AUTOSTART names a file on this machine's file system, as with VICE.
import { readFileSync, statSync } from 'node:fs';
import { UsageError } from '../../../../common/index.js';
import { MachineClock } from '../c64/clock.js';
import { C64Machine } from '../c64/machine.js';
import type { MachineSeam } from '../c64/machine-seam.js';
import { ViceMonitorServer } from './vice-monitor-server.js';

export const VIRTUAL_VICE_USAGE = `usage: ultimate-tool virtual-vice -binarymonitor [-binarymonitoraddress ip4://127.0.0.1:PORT] [options]

A virtual C64 (an emulation, not VICE) that speaks only the VICE monitors (the binary monitor, and
the text monitor beside it as far as the service uses it), started with the x64sc flags the service
uses:

  -binarymonitor                 enable the binary monitor (required: it is the only interface)
  -binarymonitoraddress ADDR     ip4://127.0.0.1:PORT or 127.0.0.1:PORT (default ip4://127.0.0.1:6502);
                                 loopback only
  -remotemonitor                 serve the text monitor too (stop reports, sw, sw reset, x)
  -remotemonitoraddress ADDR     ip4://127.0.0.1:PORT (default ip4://127.0.0.1:6510); loopback only
  -jamaction N                   accepted for x64sc compatibility; a JAM always opens the monitor
                                 (x64sc's 0, "ask", does that when a monitor is connected)
  -warp                          run as fast as the host allows (default: PAL real time)
  -default, -silent, +sound, -sounddev NAME, -console
                                 accepted for x64sc compatibility; they change nothing here
  +autostart-delay-random        accepted: AUTOSTART here never waits a random time (x64sc's
                                 -autostart-delay-random is refused: nothing here could honour it)
  -autostartprgmode 1            accepted: AUTOSTART here always injects the PRG into RAM (x64sc's
                                 mode 1); modes 0 and 2 (a virtual drive, a disk image) are refused
  --help                         this text

It exits on SIGINT/SIGTERM and when the process that started it goes away.`;

export interface VirtualViceOptions {
  host: string;
  port: number;
  /** The text monitor's port; null: not served. */
  textPort: number | null;
  warp: boolean;
}

function loopbackAddress(flag: string, v: string | undefined): { host: string; port: number } {
  const m = v === undefined ? null : /^(?:ip4:\/\/)?(127\.\d{1,3}\.\d{1,3}\.\d{1,3}):(\d{1,5})$/.exec(v);
  if (!m) throw new UsageError(`${flag} expects ip4://127.0.0.1:PORT (loopback only), got ${JSON.stringify(v ?? null)}`);
  const port = Number(m[2]);
  if (port > 65535) throw new UsageError(`${flag} port must be 0..65535, got ${port}`);
  return { host: m[1]!, port };
}

export function parseVirtualViceArgs(argv: string[]): VirtualViceOptions | 'help' {
  let monitor = false;
  let host = '127.0.0.1';
  let port = 6502;
  let warp = false;
  let text = false;
  let textPort = 6510;
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
        ({ host, port } = loopbackAddress(a, argv[++i]));
        break;
      }
      case '-remotemonitor':
        text = true;
        break;
      case '-remotemonitoraddress':
        textPort = loopbackAddress(a, argv[++i]).port;
        break;
      case '-jamaction': {
        const v = argv[++i];
        if (v === undefined || !/^[0-5]$/.test(v)) throw new UsageError(`-jamaction expects 0..5, got ${JSON.stringify(v ?? null)}`);
        break;
      }
      case '-warp':
        warp = true;
        break;
      case '-default':
      case '-silent':
      case '+sound':
      case '+autostart-delay-random':
      case '-console':
        break;
      case '-sounddev':
        i++;
        break;
      case '-autostartprgmode': {
        const v = argv[++i];
        if (v !== '1')
          throw new UsageError(`-autostartprgmode: only 1 (inject into RAM) is what virtual-vice does, got ${JSON.stringify(v ?? null)}`);
        break;
      }
      default:
        throw new UsageError(`unknown option ${JSON.stringify(a)} (virtual-vice accepts the x64sc flags listed in --help)`);
    }
  }
  if (!monitor) throw new UsageError('-binarymonitor is required: the binary monitor is the only interface of virtual-vice');
  return { host, port, textPort: text ? textPort : null, warp };
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
    ...(opts.textPort === null ? {} : { textPort: opts.textPort }),
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
