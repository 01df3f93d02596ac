// `ultimate-tool serve`: parses the command line into UltimateToolServiceOptions and runs the
// service until SIGINT/SIGTERM. The environment (C64U_HOST, C64U_PASSWORD) is read by the bin and
// handed in as `env`, so nothing under engines/ reads process.env. On start, ONE JSON line goes
// to stdout: {"url":…,"port":…,"store":…,"virtual_device":…}; logs go to stderr.
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { UsageError, createLogger, type Logger, type LogLevel } from '../../common/index.js';
import { VirtualUltimateThread } from '../../engines/ultimate/virtual/index.js';
import { type CaptureLimits, DEFAULT_CAPTURE_LIMITS } from './jobs/captures.js';
import type { UltimateTargetConfig } from './jobs/job-context.js';
import { DEFAULT_PORT, DEFAULT_VICE_COMMAND, UltimateToolService } from './service.js';
import { PortInUseError } from '../../engines/ultimate/virtual/index.js';
import { DeviceAddressError, deviceAddress } from './targets/device-address.js';
import { keyOfRole, parseVirtualDevicePorts, type VirtualDevicePorts } from './virtual-device-ports.js';

export const SERVE_USAGE = `usage: ultimate-tool serve [--project DIR] [--port N] [--store DIR]
                          [--virtual-device [--virtual-device-ports rest=N,ftp=N,…]]
                          [--vice-command "CMD ARGS…"] [--no-vice] [--vice-instances N]
                          [--real-time] [--rom-dir DIR]
                          [--capture-max-datagrams N] [--capture-max-duration-ms MS]
                          [--virtual-product u64|u64-elite2] [--bench-url URL]
                          [--adopt-orphaned-evidence]

The project service (HTTP API schema 13 on 127.0.0.1 only) and its web dashboard at the same URL (/).

  --project DIR        the C64 project with ultimate-tool.json (default: the current folder)
  --port N             TCP port on 127.0.0.1 (default ${DEFAULT_PORT}; 0 = any free port)
  --store DIR          runs, jobs and evidence (default DIR/.ultimate-tool)
  --virtual-device     start a virtual Ultimate 64 (an EMULATION, on its own thread) as the ultimate target
  --virtual-device-ports rest=N,ftp=N,ftp-data=LOW-HIGH,dma=N,vice=N,bench=N
                       pin the virtual device's ports (1..65535; any subset, a key left out gets any free
                       port): REST, FTP control, FTP passive data (a range), DMA, its VICE binary monitor,
                       the Elite II lab bench. A pinned port that is taken stops the start with its name
  --vice-command CMD   the emulator for the vice target, split on spaces (default "${DEFAULT_VICE_COMMAND.join(' ')}");
                       the service appends -binarymonitor -binarymonitoraddress ip4://127.0.0.1:PORT
  --no-vice            disable the vice target
  --vice-instances N   emulator instances the vice target runs side by side, each run on a fresh one
                       (default: this machine's cores, ${availableParallelism()} here)
  --real-time          run the emulations at a real C64's pace: the virtual Ultimate at 1x, x64sc without
                       -warp (default: as fast as they can — every run record says which)
  --rom-dir DIR        the virtual device runs the ROMs of this folder, by VICE's file names (kernal-901227-03.bin,
                       basic-901226-01.bin, chargen-901225-01.bin: VICE's C64 folder), instead of its stand-in
  --capture-max-datagrams N      bound of every debug-stream capture (default ${DEFAULT_CAPTURE_LIMITS.maxDatagrams})
  --capture-max-duration-ms MS   time bound of every debug-stream capture (default ${DEFAULT_CAPTURE_LIMITS.maxDurationMs})
  --virtual-product P  the virtual device plays P: u64 (default) or u64-elite2 (an Ultimate 64 Elite II that runs
                       native .UE2 programs; its lab bench becomes the --bench-url)
  --bench-url URL      the lab bench beside the device under native test — its serial console (the RISC-V
                       core's UART) and power outlet, NOT a device interface — as http://127.0.0.1:PORT; native
                       runs read their output there (without it the output is not collected)
  --adopt-orphaned-evidence  start although the store's database is missing, empty or younger than the
                       evidence beside it: that evidence is moved to orphaned/ (kept, without runs). Without
                       it such a store stops the start; restoring the database from a backup is the other way
                       (ultimate-tool store --help)
  --help               this text

Environment: C64U_HOST (the Ultimate's address: a host or IP, with :PORT for another REST port, or
http://host:port) and C64U_PASSWORD (its network password; it stays
in this process: never in a response, a log line or a run record).`;

export interface ServeArgs {
  project: string;
  port: number;
  store?: string;
  virtualDevice: boolean;
  /** --virtual-device-ports; null: every port is the system's choice. */
  virtualDevicePorts: VirtualDevicePorts | null;
  viceCommand: string[] | null;
  captureLimits: CaptureLimits;
  virtualProduct: 'u64' | 'u64-elite2';
  benchUrl: string | null;
  adoptOrphanedEvidence: boolean;
  /** --vice-instances; undefined: the machine's cores. */
  viceInstances?: number;
  /** --real-time: the virtual device at 1x and x64sc without -warp. */
  realTime: boolean;
  /** --rom-dir: ROM images for the virtual device. */
  romDir?: string;
}

export function parseServeArgs(argv: string[]): ServeArgs | 'help' {
  const out: ServeArgs = {
    project: '.',
    port: DEFAULT_PORT,
    virtualDevice: false,
    virtualDevicePorts: null,
    viceCommand: DEFAULT_VICE_COMMAND,
    captureLimits: { ...DEFAULT_CAPTURE_LIMITS },
    virtualProduct: 'u64',
    benchUrl: null,
    adoptOrphanedEvidence: false,
    realTime: false,
  };
  const bounded = (flag: string, v: string, max: number): number => {
    if (!/^[0-9]{1,9}$/.test(v) || Number(v) < 1 || Number(v) > max)
      throw new UsageError(`${flag} expects an integer 1..${max}, got ${JSON.stringify(v)}`);
    return Number(v);
  };
  let portsText: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.indexOf('=');
    const [flag, inline] = a.startsWith('--') && eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw new UsageError(`${flag} expects a value`);
      return v;
    };
    switch (flag) {
      case '--help':
      case '-h':
        return 'help';
      case '--project':
        out.project = value();
        break;
      case '--store':
        out.store = value();
        break;
      case '--port': {
        const v = value();
        const n = Number(v);
        if (!/^[0-9]+$/.test(v) || n > 65535) throw new UsageError(`--port expects an integer 0..65535, got ${JSON.stringify(v)}`);
        out.port = n;
        break;
      }
      case '--virtual-device':
        out.virtualDevice = true;
        break;
      case '--virtual-device-ports':
        if (portsText !== undefined) throw new UsageError('--virtual-device-ports is given twice; give every port in one list');
        portsText = value();
        break;
      case '--vice-command': {
        const parts = value().split(/\s+/).filter(Boolean);
        if (!parts.length) throw new UsageError('--vice-command expects a command');
        out.viceCommand = parts;
        break;
      }
      case '--virtual-product': {
        const v = value();
        if (v !== 'u64' && v !== 'u64-elite2')
          throw new UsageError(`--virtual-product expects u64 or u64-elite2, got ${JSON.stringify(v)}`);
        out.virtualProduct = v;
        break;
      }
      case '--bench-url': {
        const v = value();
        if (!/^http:\/\/127\.\d+\.\d+\.\d+:\d+\/?$/.test(v))
          throw new UsageError(`--bench-url expects http://127.0.0.1:PORT (the lab bench over loopback), got ${JSON.stringify(v)}`);
        out.benchUrl = v;
        break;
      }
      case '--adopt-orphaned-evidence':
        out.adoptOrphanedEvidence = true;
        break;
      case '--no-vice':
        out.viceCommand = null;
        break;
      case '--vice-instances':
        out.viceInstances = bounded(flag, value(), 64);
        break;
      case '--real-time':
        out.realTime = true;
        break;
      case '--rom-dir':
        out.romDir = value();
        break;
      case '--capture-max-datagrams':
        out.captureLimits.maxDatagrams = bounded(flag, value(), 50_000_000);
        break;
      case '--capture-max-duration-ms':
        out.captureLimits.maxDurationMs = bounded(flag, value(), 3_600_000);
        break;
      default:
        throw new UsageError(`unknown option ${JSON.stringify(a)}`);
    }
  }
  if (out.romDir !== undefined && !out.virtualDevice)
    throw new UsageError('--rom-dir gives the virtual device its ROMs; add --virtual-device');
  if (portsText !== undefined) {
    // Checked once every flag is read: the service's --port and the product may come after it.
    if (!out.virtualDevice) throw new UsageError('--virtual-device-ports pins the ports of --virtual-device; add --virtual-device');
    out.virtualDevicePorts = parseVirtualDevicePorts(portsText, out.port !== 0 ? { 'the service (--port)': out.port } : {});
    if (out.virtualDevicePorts.bench !== undefined && out.virtualProduct !== 'u64-elite2')
      throw new UsageError('--virtual-device-ports: bench is the lab bench of an Elite II; it needs --virtual-product u64-elite2');
  }
  return out;
}

/** Why a start failed, with what to do about it when it is a port (the flag that pinned it). */
function startFailure(e: unknown, args: ServeArgs, serviceStarting: boolean): string {
  if (e instanceof PortInUseError) {
    const key = keyOfRole(e.role);
    const pinned = args.virtualDevicePorts?.[key] !== undefined;
    const what = e.code === 'EADDRINUSE' ? 'is already in use by another program' : `cannot be bound (${e.code})`;
    return (
      `the virtual device's ${e.role} port ${e.port} (--virtual-device-ports ${key}=${e.port}) ${what}; ` +
      `stop the program that holds it, or pin another port with ${key}=N${pinned ? `, or leave ${key} out to let the system choose one` : ''}`
    );
  }
  const code = (e as NodeJS.ErrnoException).code;
  if (serviceStarting && (code === 'EADDRINUSE' || code === 'EACCES'))
    return `the service's port ${args.port} (--port) ${code === 'EADDRINUSE' ? 'is already in use by another program' : `cannot be bound (${code})`}; stop the program that holds it, or choose another with --port N (0 = any free port)`;
  return (e as Error).message;
}

export interface ServeEnv {
  /** C64U_HOST */
  host?: string;
  /** C64U_PASSWORD */
  password?: string;
  /** From MCP_ENGINES_LOG (default warn). */
  logLevel?: LogLevel;
}

/** Runs `ultimate-tool serve`; resolves with the exit status after SIGINT/SIGTERM. */
export async function runServeCli(argv: string[], env: ServeEnv): Promise<number> {
  let args: ServeArgs | 'help';
  try {
    args = parseServeArgs(argv);
    if (args !== 'help' && args.virtualDevice && env.host)
      throw new UsageError('--virtual-device and C64U_HOST both name the ultimate target; use one of them');
    if (args !== 'help' && env.host) {
      try {
        deviceAddress(env.host);
      } catch (e) {
        if (e instanceof DeviceAddressError) throw new UsageError(e.message);
        throw e;
      }
    }
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`ultimate-tool serve: ${e.message}\n${SERVE_USAGE}\n`);
      return e.exitCode;
    }
    throw e;
  }
  if (args === 'help') {
    process.stdout.write(`${SERVE_USAGE}\n`);
    return 0;
  }
  const logger: Logger = createLogger('ultimate-tool serve', env.logLevel ?? 'warn');
  let virtual: VirtualUltimateThread | undefined;
  let ultimate: UltimateTargetConfig | null = null;
  let service: UltimateToolService;
  let serviceStarting = false;
  try {
    if (args.virtualDevice) {
      const elite2 = args.virtualProduct === 'u64-elite2';
      const pins = args.virtualDevicePorts ?? {};
      // Every port is bound before anything runs: the machine's clock starts only once the
      // service listens too, and a port that cannot be bound closes what was bound before it.
      // The device runs on its own thread (emulating and streaming on a second core) and paces
      // its stream to the service's receivers (virtual-ultimate-thread.ts).
      virtual = await VirtualUltimateThread.start(
        {
          password: env.password,
          // An emulation runs as fast as it can unless asked for a real C64's pace (the records say which).
          speed: args.realTime ? 1 : 'max',
          ...(args.romDir !== undefined ? { romDir: resolve(args.romDir) } : {}),
          httpPort: pins.rest ?? 0,
          ftpPort: pins.ftp ?? 0,
          dmaPort: pins.dma ?? 0,
          vicePort: pins.vice ?? 0,
          ...(pins.ftpData ? { ftpPassivePorts: pins.ftpData } : {}),
          ...(elite2 ? { product: 'u64-elite2' as const, benchPort: pins.bench ?? 0 } : {}),
        },
        (reason) => logger.error(`${reason}; the ultimate target is unavailable until the service restarts`),
      );
      if (elite2 && !args.benchUrl) args.benchUrl = `http://127.0.0.1:${virtual.ports.bench}`;
      ultimate = {
        device: {
          baseUrl: `http://127.0.0.1:${virtual.ports.http}`,
          ftpPort: virtual.ports.ftp,
          dmaPort: virtual.ports.dma,
          password: env.password,
        },
        virtualDevice: true,
        speed: args.realTime ? 'real-time' : 'max',
        streamCredit: virtual.streamCredit,
      };
    } else if (env.host) {
      ultimate = { device: { ...deviceAddress(env.host), password: env.password }, virtualDevice: false };
    }
    serviceStarting = true;
    service = await UltimateToolService.start({
      projectDir: resolve(args.project),
      storeDir: args.store ? resolve(args.store) : undefined,
      port: args.port,
      vice: args.viceCommand ? { command: args.viceCommand, instances: args.viceInstances, warp: !args.realTime } : null,
      ultimate,
      logger,
      captureLimits: args.captureLimits,
      benchUrl: args.benchUrl,
      adoptOrphanedEvidence: args.adoptOrphanedEvidence,
    });
  } catch (e) {
    await virtual?.stop();
    process.stderr.write(`ultimate-tool serve: cannot start: ${startFailure(e, args, serviceStarting)}\n`);
    return 1;
  }
  await virtual?.startClock();
  const p = virtual?.ports;
  const virtualDevicePorts = p
    ? {
        rest: p.http,
        ftp: p.ftp,
        ftp_data: args.virtualDevicePorts?.ftpData ? [args.virtualDevicePorts.ftpData.from, args.virtualDevicePorts.ftpData.to] : null,
        dma: p.dma,
        vice: p.vice,
        ...(p.bench !== undefined ? { bench: p.bench } : {}),
      }
    : null;
  process.stdout.write(
    `${JSON.stringify({ url: service.url, port: service.port, store: service.store.dir, virtual_device: args.virtualDevice, virtual_device_ports: virtualDevicePorts, bench_url: args.benchUrl })}\n`,
  );
  if (!ultimate)
    logger.warn(
      'no Ultimate configured (C64U_HOST is not set): the ultimate target is unavailable; start with --virtual-device to run against a virtual Ultimate 64 (an emulation) instead',
    );
  logger.info(
    `serving ${service.projectRoot} on ${service.url}${args.virtualDevice ? ' with a virtual Ultimate 64 (an emulation, not hardware)' : ''}`,
  );
  await new Promise<void>((r) => {
    process.once('SIGINT', () => r());
    process.once('SIGTERM', () => r());
  });
  await service.stop();
  await virtual?.stop();
  return 0;
}
