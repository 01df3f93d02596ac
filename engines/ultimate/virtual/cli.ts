// `ultimate-tool virtual-device`: runs the virtual Ultimate 64 until SIGINT/SIGTERM (or stdin closes
// with --exit-on-stdin-close). Prints the chosen ports as ONE JSON line on stdout, so scripts and
// tests can find them; everything else goes to stderr.
import { readFileSync } from 'node:fs';
import { UsageError } from '../../../common/usage-error.js';
import { CIA_MODELS, type CiaModel } from './c64/cia6526.js';
import { VirtualUltimate, type VirtualUltimateOptions } from './index.js';
import { REU_SIZES_KB } from './c64/machine.js';
import { loadRomDir } from './c64/rom-dir.js';

export const VIRTUAL_DEVICE_USAGE = `usage: ultimate-tool virtual-device [options]

Runs a virtual Ultimate 64 (an emulation, not hardware) on loopback.

  --host ADDR           loopback address to bind (default 127.0.0.1)
  --http-port N         REST port (default 0 = any free port)
  --ftp-port N          FTP port (default 0)
  --dma-port N          DMA service port (default 0)
  --vice-port N         VICE binary monitor port (default 0)
  --no-vice             do not serve the VICE binary monitor
  --password-file PATH  network password, read from a file (first line)
  --password TEXT       network password (visible in the process list; prefer --password-file)
  --speed X             clock as a multiple of the PAL C64 (default 1), or "max"
  --slice-ms N          clock slice length in ms (default 5)
  --drop-every N        drop every Nth debug-stream datagram on purpose (loss testing)
  --stream-source-port N debug-stream UDP source port (default 6510 if free, else any; 0 = any)
  --product P           u64 (default); u2plus (no FF76/debugreg, U2+ stream bits); u64-elite2 (RISC-V: Run Update, native mode)
  --firmware 3.15|3.14  firmware behaviour where versions differ (default 3.15: idle DMA closes after 1 s)
  --rom-dir DIR         boot real ROMs from DIR (VICE's names: kernal-901227-03.bin, basic-901226-01.bin,
                        chargen-901225-01.bin); default: the stand-in KERNAL (no Commodore ROM ships)
  --cia-model M         6526 (default), 6526A, or 6526-4485 (the old CIA's batch dated 4485)
  --video V             pal (default), ntsc (6567R8) or ntsc-old (6567R56A)
  --vic-revision R      old (6569/6567, default) or new (8565/8562, as in a C64C)
  --reu-kb N            REU at $DF00 of N KiB (128, 256, 512, 1024, 2048, 4096, 8192, 16384); default none
  --exit-on-stdin-close stop when stdin reaches end of file
  --bench-port N        u64-elite2 only: lab-bench port (UART log, power cycle; default 0)
  --help                this text

On start, one JSON line goes to stdout: {"host":…,"http":…,"ftp":…,"dma":…,"vice":…}.`;

function intArg(name: string, v: string | undefined, min: number, max: number): number {
  const n = Number(v);
  if (v === undefined || !Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${name} expects an integer ${min}..${max}, got ${v === undefined ? 'nothing' : JSON.stringify(v)}`);
  return n;
}

export function parseVirtualDeviceArgs(argv: string[]): { options: VirtualUltimateOptions; exitOnStdinClose: boolean } | 'help' {
  const options: VirtualUltimateOptions = {};
  let exitOnStdinClose = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.indexOf('=');
    const [flag, inline] = a.startsWith('--') && eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    switch (flag) {
      case '--help':
      case '-h':
        return 'help';
      case '--host':
        options.host = value();
        break;
      case '--http-port':
        options.httpPort = intArg(flag, value(), 0, 65535);
        break;
      case '--ftp-port':
        options.ftpPort = intArg(flag, value(), 0, 65535);
        break;
      case '--dma-port':
        options.dmaPort = intArg(flag, value(), 0, 65535);
        break;
      case '--vice-port':
        options.vicePort = intArg(flag, value(), 0, 65535);
        break;
      case '--no-vice':
        options.vicePort = null;
        break;
      case '--bench-port':
        options.benchPort = intArg(flag, value(), 0, 65535);
        break;
      case '--password':
        options.password = value();
        break;
      case '--password-file': {
        const p = value();
        if (!p) throw new UsageError('--password-file expects a path');
        try {
          options.password = readFileSync(p, 'utf8').split(/\r?\n/)[0];
        } catch (e) {
          throw new UsageError(`--password-file: cannot read ${p}: ${(e as Error).message}`);
        }
        break;
      }
      case '--speed': {
        const v = value();
        if (v === 'max') options.speed = 'max';
        else {
          const n = Number(v);
          if (!Number.isFinite(n) || n <= 0 || n > 1000)
            throw new UsageError(`--speed expects a number in (0, 1000] or "max", got ${JSON.stringify(v)}`);
          options.speed = n;
        }
        break;
      }
      case '--slice-ms':
        options.sliceMs = intArg(flag, value(), 1, 1000);
        break;
      case '--drop-every': {
        const n = intArg(flag, value(), 2, 1_000_000);
        options.dropDatagram = (_seq, ordinal) => ordinal % n === n - 1;
        break;
      }
      case '--stream-source-port':
        options.streamSourcePort = intArg(flag, value(), 0, 65535);
        break;
      case '--product': {
        const v = value();
        if (v !== 'u64' && v !== 'u2plus' && v !== 'u64-elite2')
          throw new UsageError(`--product expects u64, u2plus or u64-elite2, got ${JSON.stringify(v)}`);
        options.product = v;
        break;
      }
      case '--firmware': {
        const v = value();
        if (v !== '3.15' && v !== '3.14') throw new UsageError(`--firmware expects 3.15 or 3.14, got ${JSON.stringify(v)}`);
        options.firmware = v;
        break;
      }
      case '--rom-dir': {
        const v = value();
        if (!v) throw new UsageError('--rom-dir expects a folder');
        try {
          options.roms = loadRomDir(v);
        } catch (e) {
          throw new UsageError(`--rom-dir: ${(e as Error).message}`);
        }
        break;
      }
      case '--cia-model': {
        const v = value();
        if (!CIA_MODELS.includes(v as CiaModel)) {
          throw new UsageError(`--cia-model expects one of ${CIA_MODELS.join(', ')}; got ${JSON.stringify(v)}`);
        }
        options.ciaModel = v as CiaModel;
        break;
      }
      case '--video': {
        const v = value();
        if (v !== 'pal' && v !== 'ntsc' && v !== 'ntsc-old') {
          throw new UsageError(`--video expects pal or ntsc (6567R8) or ntsc-old (6567R56A), got ${JSON.stringify(v)}`);
        }
        options.video = v;
        break;
      }
      case '--vic-revision': {
        const v = value();
        if (v !== 'old' && v !== 'new')
          throw new UsageError(`--vic-revision expects old (6569/6567) or new (8565/8562), got ${JSON.stringify(v)}`);
        options.vicRevision = v;
        break;
      }
      case '--reu-kb': {
        const v = value();
        const n = Number(v);
        if (!REU_SIZES_KB.includes(n)) throw new UsageError(`--reu-kb expects one of ${REU_SIZES_KB.join(', ')}, got ${JSON.stringify(v)}`);
        options.reuKb = n;
        break;
      }
      case '--exit-on-stdin-close':
        exitOnStdinClose = true;
        break;
      default:
        throw new UsageError(`unknown option ${JSON.stringify(a)}`);
    }
  }
  return { options, exitOnStdinClose };
}

/** Runs the CLI; resolves with the exit code once the device has stopped. */
export async function runVirtualDeviceCli(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseVirtualDeviceArgs>;
  try {
    parsed = parseVirtualDeviceArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`ultimate-tool virtual-device: ${e.message}\n${VIRTUAL_DEVICE_USAGE}\n`);
      return e.exitCode;
    }
    throw e;
  }
  if (parsed === 'help') {
    process.stdout.write(`${VIRTUAL_DEVICE_USAGE}\n`);
    return 0;
  }
  let device: VirtualUltimate;
  try {
    device = await VirtualUltimate.start(parsed.options);
  } catch (e) {
    process.stderr.write(`ultimate-tool virtual-device: cannot start: ${(e as Error).message}\n`);
    return 1;
  }
  process.stdout.write(`${JSON.stringify(device.ports)}\n`);
  process.stderr.write(
    `virtual Ultimate 64 listening on ${device.host} (REST ${device.ports.http}, FTP ${device.ports.ftp}, DMA ${device.ports.dma}, VICE ${device.ports.vice ?? 'off'})\n`,
  );
  await new Promise<void>((resolve) => {
    const done = () => resolve();
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    if (parsed.exitOnStdinClose) {
      process.stdin.on('end', done);
      process.stdin.on('close', done);
      process.stdin.resume();
    }
  });
  const st = device.streamer;
  process.stderr.write(
    `virtual Ultimate 64 stopping: ${device.clock.executed} clocks run; debug stream sent ${st.sent} datagrams, dropped ${st.droppedOnPurpose} on purpose, ${st.sendErrors} send errors\n`,
  );
  await device.stop();
  return 0;
}
