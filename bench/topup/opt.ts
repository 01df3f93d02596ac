// topup-opt vs topup benchmark, side by side in one run, both bins over MCP stdio:
//   node --import tsx bench/topup/opt.ts [--rounds N]
//   cpu      a CPU-heavy phrase (naive fib 32; a 10 M-step float loop) on each bin
//   trivial  the cost of one trivial phrase (`1 + 1`) per separate eval call on each bin — the
//            native driver pays a compile, assemble and link per phrase
//   batch    eval_batch of 50 trivial phrases in one call vs 50 separate eval calls, on each bin
// Samples are interleaved (topup, topup-opt, topup, …) so load bursts hit both alike.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpClient, parseToolPayload, silentLogger } from '../../src/index.js';
import { spawnStdio } from '../../transports/index.js';
import { binCommand } from '../../test/helpers/bin.js';

const argIndex = process.argv.indexOf('--rounds');
const ROUNDS = argIndex > 0 ? Number(process.argv[argIndex + 1]) : 5;
const BINS = ['topup', 'topup-opt'] as const;
type Bin = (typeof BINS)[number];

const FIB = 'let rec fib n = if n < 2 then n else fib (n - 1) + fib (n - 2)';
const CPU: Record<string, { source: string; expect: string }> = {
  'fib 32': { source: 'fib 32', expect: '2178309' },
  'float loop (10 M sqrt)': {
    source: '(let acc = ref 0.0 in for i = 1 to 10_000_000 do acc := !acc +. sqrt (float_of_int i) done; Float.round !acc)',
    expect: '21081852649.',
  },
};
/** The same computation timed inside the agent by its own CPU clock: no compile, no MCP, and
 *  much less sensitive to other processes on a loaded machine than wall time. */
const cpuTimed = (source: string) => `let t0 = Sys.time () in ignore (Sys.opaque_identity (${source})); (Sys.time () -. t0) *. 1000.`;

function median(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}
const ms = (x: number) => `${x.toFixed(x < 10 ? 3 : 1)} ms`;

const work = mkdtempSync(join(tmpdir(), 'topup-opt-bench-'));
try {
  const clients = new Map<Bin, McpClient>();
  for (const bin of BINS) {
    const { command, args } = binCommand(bin);
    const env = { ...process.env, TOPUP_LOG: join(work, `${bin}.ml`), TOPUP_CHECKPOINT_DIR: join(work, 'cp') };
    const { transport } = spawnStdio(command, args, { env, stderr: 'inherit' });
    const client = new McpClient({ name: 'bench', version: '1' }, { logger: silentLogger });
    await client.connect(transport, { timeoutMs: 300_000 });
    clients.set(bin, client);
  }
  const evalOn = async (bin: Bin, source: string): Promise<{ value_repr: string | null; error: unknown }> =>
    parseToolPayload(await clients.get(bin)!.callTool('eval', { source, timeout: 600 })) as { value_repr: string | null; error: unknown };
  const timed = async (fn: () => Promise<unknown>): Promise<number> => {
    const t0 = process.hrtime.bigint();
    await fn();
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };

  for (const bin of BINS) {
    const r = await evalOn(bin, FIB);
    if (r.error) throw new Error(`${bin}: ${JSON.stringify(r.error)}`);
  }

  // CPU-heavy phrases.
  const cpu = new Map<string, Record<Bin, number[]>>();
  const agentCpu = new Map<string, Record<Bin, number[]>>();
  for (const [name, { source, expect }] of Object.entries(CPU)) {
    const samples: Record<Bin, number[]> = { topup: [], 'topup-opt': [] };
    for (let i = 0; i < ROUNDS; i++) {
      for (const bin of BINS) {
        let answer: { value_repr: string | null; error: unknown } | undefined;
        samples[bin].push(await timed(async () => (answer = await evalOn(bin, source))));
        if (answer?.value_repr !== expect) throw new Error(`${bin} ${name}: ${JSON.stringify(answer)}`);
      }
    }
    cpu.set(name, samples);
    const inside: Record<Bin, number[]> = { topup: [], 'topup-opt': [] };
    for (let i = 0; i < ROUNDS; i++) {
      for (const bin of BINS) {
        const r = await evalOn(bin, cpuTimed(source));
        if (r.error || r.value_repr === null) throw new Error(`${bin} ${name} (CPU-timed): ${JSON.stringify(r)}`);
        inside[bin].push(Number(r.value_repr));
      }
    }
    agentCpu.set(name, inside);
  }

  // Trivial phrase per separate call.
  const trivial: Record<Bin, number[]> = { topup: [], 'topup-opt': [] };
  for (let i = 0; i < 20 + ROUNDS * 40; i++) {
    for (const bin of BINS) {
      const t = await timed(() => evalOn(bin, '1 + 1'));
      if (i >= 20) trivial[bin].push(t);
    }
  }

  // eval_batch vs separate calls, 50 phrases.
  const sources = Array.from({ length: 50 }, (_, i) => `${i} + 1`);
  const batch: Record<Bin, number[]> = { topup: [], 'topup-opt': [] };
  const separate: Record<Bin, number[]> = { topup: [], 'topup-opt': [] };
  for (let i = 0; i < ROUNDS + 1; i++) {
    for (const bin of BINS) {
      const client = clients.get(bin)!;
      const b = await timed(() => client.callTool('eval_batch', { sources }));
      const s = await timed(async () => {
        for (const source of sources) await client.callTool('eval', { source });
      });
      if (i >= 1) {
        batch[bin].push(b);
        separate[bin].push(s);
      }
    }
  }
  for (const client of clients.values()) await client.close();

  console.log(`topup-opt vs topup, MCP stdio, ${ROUNDS} rounds, interleaved (node ${process.version})`);
  console.log('');
  console.log('| CPU-heavy phrase | measured | topup (bytecode) | topup-opt (native) | topup / topup-opt |');
  console.log('|---|---|---|---|---|');
  for (const [name, s] of cpu) {
    const b = median(s.topup);
    const n = median(s['topup-opt']);
    console.log(`| ${name} | eval call, wall (incl. compile) | ${ms(b)} | ${ms(n)} | ${(b / n).toFixed(1)}× |`);
    const inside = agentCpu.get(name)!;
    const bi = median(inside.topup);
    const ni = median(inside['topup-opt']);
    console.log(`| ${name} | computation, agent CPU time | ${ms(bi)} | ${ms(ni)} | ${(bi / ni).toFixed(1)}× |`);
  }
  console.log('');
  const tb = median(trivial.topup);
  const tn = median(trivial['topup-opt']);
  console.log('| trivial phrase `1 + 1`, one eval call | topup | topup-opt | topup-opt / topup |');
  console.log('|---|---|---|---|');
  console.log(`| median per call | ${ms(tb)} | ${ms(tn)} | ${(tn / tb).toFixed(1)}× |`);
  console.log('');
  console.log('| 50 trivial phrases | eval_batch per phrase | separate eval per phrase | separate / batch |');
  console.log('|---|---|---|---|');
  for (const bin of BINS) {
    const b = median(batch[bin]) / 50;
    const s = median(separate[bin]) / 50;
    console.log(`| ${bin} | ${ms(b)} | ${ms(s)} | ${(s / b).toFixed(2)}× |`);
  }
  console.log('');
  console.log(
    `load average after the run: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} on ${cpus().length} CPUs`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
