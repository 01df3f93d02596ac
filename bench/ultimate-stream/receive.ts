// Debug-stream receive benchmark on loopback.
//   node --import tsx bench/ultimate-stream/receive.ts [--seconds 30] [--speed 10] [--peer-seconds 10] [--baseline-seconds 10]
// 1. The virtual device runs in its own process at `--speed`× the PAL clock, so it emits
//    speed × ~2737 datagrams/s of 1444 bytes, driven by the emulated CPU's bus cycles.
// 2. Ours: DebugStreamCapture (plain 'message' listener that only appends; a timer drains to disk)
//    captures for `--seconds`, writing the capture file; loss is read from the sequence numbers.
// 3. Peer, same rate, same run: dgram-as-promised's async iterator with a loop body that awaits a
//    file append (the pattern DEVICE.md measured losing most datagrams).
// 4. The emulated CPU's speed in-process: bare, and with a per-cycle bus callback.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import DgramAsPromised from 'dgram-as-promised';
import {
  DebugStreamCapture,
  RestClient,
  SequenceTracker,
  DEVICE_DATAGRAMS_PER_SECOND,
  datagramSequence,
} from '../../engines/ultimate/index.js';
import { C64Machine } from '../../engines/ultimate/virtual/c64/machine.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function arg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
}
const SECONDS = arg('seconds', 30);
const SPEED = arg('speed', 10);
const PEER_SECONDS = arg('peer-seconds', 10);
/** Also measured, briefly, at the real device's own rate (1×) as a baseline. */
const BASELINE_SECONDS = arg('baseline-seconds', 10);

async function startDevice(speed: number): Promise<{ rest: RestClient; stop(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'bin/ultimate-tool.ts'), 'virtual-device', '--speed', String(speed), '--slice-ms', '2', '--no-vice'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (c) => reject(new Error(`virtual device exited with ${c}`)));
  });
  const ports = JSON.parse(line) as { http: number };
  return {
    rest: new RestClient({ baseUrl: `http://127.0.0.1:${ports.http}` }),
    stop: () =>
      new Promise<void>((r) => {
        child.once('exit', () => r());
        child.kill('SIGTERM');
      }),
  };
}

async function ours(rest: RestClient, dir: string, speed: number, seconds: number) {
  const cap = await DebugStreamCapture.open({
    file: join(dir, 'bench.u64cap'),
    bindAddress: '127.0.0.1',
    port: 0,
    maxDatagrams: Math.ceil(DEVICE_DATAGRAMS_PER_SECOND * speed * seconds * 1.5),
    maxDurationMs: seconds * 1000,
  });
  await rest.streamStart('debug', `127.0.0.1:${cap.address.port}`);
  await cap.boundReached;
  await rest.streamStop('debug');
  const s = await cap.finish();
  const size = (await stat(s.file)).size;
  await rm(s.file);
  return { ...s, size, rate: s.datagrams / (s.durationMs / 1000) };
}

async function peer(rest: RestClient, dir: string) {
  const socket = DgramAsPromised.createSocket('udp4');
  const { port } = await socket.bind({ port: 0, address: '127.0.0.1' });
  try {
    socket.setRecvBufferSize(16 * 1024 * 1024);
  } catch {
    /* capped */
  }
  const fh = await open(join(dir, 'peer.bin'), 'w');
  const tracker = new SequenceTracker();
  let received = 0;
  await rest.streamStart('debug', `127.0.0.1:${port}`);
  const t0 = performance.now();
  const timer = setTimeout(() => {
    void socket.close();
  }, PEER_SECONDS * 1000);
  let first = -1,
    last = -1;
  for await (const pkt of socket) {
    const seq = datagramSequence(pkt.msg);
    if (first < 0) first = seq;
    last = seq;
    tracker.observe(seq);
    received++;
    await fh.write(pkt.msg); // the awaiting loop body
  }
  clearTimeout(timer);
  const seconds = (performance.now() - t0) / 1000;
  await rest.streamStop('debug');
  await fh.close();
  await rm(join(dir, 'peer.bin'));
  const sent = received + tracker.missing;
  return {
    received,
    missing: tracker.missing,
    gaps: tracker.gaps,
    sent,
    seconds,
    lossPct: (100 * tracker.missing) / Math.max(1, sent),
    first,
    last,
  };
}

function cpuSpeed(withCallback: boolean): number {
  let sink = 0;
  const m = new C64Machine(
    withCallback
      ? {
          onBusCycle: (e: number) => {
            sink ^= e;
          },
        }
      : {},
  );
  m.reset();
  const t0 = performance.now();
  let cycles = 0;
  while (performance.now() - t0 < 3000) cycles += m.run(100_000);
  if (sink === 0.5) console.log(sink);
  return cycles / ((performance.now() - t0) / 1000);
}

function load(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'u2-bench-'));
  console.log(`host: ${cpus().length} CPUs, load average ${load()} at start`);
  try {
    for (const [speed, seconds, peerSeconds] of [
      [1, BASELINE_SECONDS, 0],
      [SPEED, SECONDS, PEER_SECONDS],
    ] as const) {
      if (seconds <= 0) continue;
      const dev = await startDevice(speed);
      try {
        const target = DEVICE_DATAGRAMS_PER_SECOND * speed;
        console.log(
          `\n== ${speed}× the device rate: target ${target} datagrams/s (${((target * 1444 * 8) / 1e6).toFixed(0)} Mbit/s), ${seconds} s capture written to disk`,
        );
        const a = await ours(dev.rest, dir, speed, seconds);
        const oursLoss = (100 * a.missing) / Math.max(1, a.datagrams + a.missing);
        console.log(
          `ours  (plain listener + drain to disk): ${a.datagrams} datagrams in ${(a.durationMs / 1000).toFixed(1)} s = ${a.rate.toFixed(0)}/s (${(a.rate / DEVICE_DATAGRAMS_PER_SECOND).toFixed(2)}× device), missing ${a.missing} (${oursLoss.toFixed(3)}%), gaps ${a.gaps}, out of order ${a.outOfOrder}, file ${(a.size / 1e6).toFixed(0)} MB, recv buffer ${a.recvBufferBytes} B, truncation ${a.truncation}; load ${load()}`,
        );
        if (peerSeconds > 0) {
          const b = await peer(dev.rest, dir);
          console.log(
            `peer  (dgram-as-promised iterator, awaiting body): received ${b.received} of ~${b.sent} in ${b.seconds.toFixed(1)} s, missing ${b.missing} (${b.lossPct.toFixed(1)}% loss), gaps ${b.gaps}; load ${load()}`,
          );
          console.log(
            `ratio: loss ours ${oursLoss.toFixed(3)}% vs peer ${b.lossPct.toFixed(1)}%; datagrams kept per second ours/peer = ${(a.rate / (b.received / b.seconds)).toFixed(1)}`,
          );
        }
      } finally {
        await dev.stop();
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const bare = cpuSpeed(false);
  const withCb = cpuSpeed(true);
  console.log(
    `\nemulated 6510: ${(bare / 1e6).toFixed(1)} MHz bare = ${(bare / 985_248).toFixed(1)}× a PAL C64; with a per-cycle bus callback ${(withCb / 1e6).toFixed(1)} MHz = ${(withCb / 985_248).toFixed(1)}×; load ${load()}`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
