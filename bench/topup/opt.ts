// topup-opt vs topup (and a plain ocamlopt program), side by side in one run, both bins over MCP stdio:
//   node --import tsx bench/topup/opt.ts [--rounds N] [--batch-only]
//   trivial  `let v = 1 + 1`, one eval call each, median (issue 23: ≤ 2 ms and ≤ 1.5× topup), by the
//            clock and by the CPU time of the whole chain (see batch)
//   fib 32   as a whole eval call, vs the same code as a plain `ocamlopt` program run as a process
//            (issue 23: ≤ 1.5× the program + 2 ms, and ≥ 5× faster than topup), by the clock and by
//            CPU time: the chain's for the call, the program's own (Sys.time at its end: its whole
//            life as a process, start-up included)
//   compute  fib 32, an allocating list loop and a float loop timed by each process's own CPU
//            clock (Sys.time), in the agent and in the plain program: what the phrase code itself
//            costs, interrupt machinery included, with little sensitivity to other processes
//   batch    eval_batch of 100 small phrases vs 100 separate eval calls, per phrase, on each bin
//            (issue 23: ≥ 5× cheaper per phrase on topup-opt), by the clock and by CPU time: the
//            CPU time of the whole chain (this client, the MCP server and every process under it,
//            the agent included), which a machine loaded by other processes inflates far less
// Samples are interleaved (topup, topup-opt, plain, topup, …) so load bursts hit all alike;
// medians are reported.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpClient, parseToolPayload, silentLogger } from '../../src/index.js';
import { spawnStdio } from '../../transports/index.js';
import { binCommand } from '../../test/helpers/bin.js';

const argIndex = process.argv.indexOf('--rounds');
const ROUNDS = argIndex > 0 ? Number(process.argv[argIndex + 1]) : 5;
/** Only the batch row (the others are skipped): for working on eval_batch. */
const BATCH_ONLY = process.argv.includes('--batch-only');
const BINS = ['topup', 'topup-opt'] as const;
type Bin = (typeof BINS)[number];

const FIB = 'let rec fib n = if n < 2 then n else fib (n - 1) + fib (n - 2)';
/** Workloads for the compute rows: a definition and an expression, the same text in the agent
 *  and in the plain program. */
const COMPUTE: Record<string, { define: string; run: string }> = {
  'fib 32 (non-tail recursion, no allocation)': { define: FIB, run: 'fib 32' },
  'list loop (allocating: 200 × List.init 10 000 |> List.map |> List.fold_left)': {
    define:
      'let list_loop () = let t = ref 0 in for _ = 1 to 200 do t := !t + List.fold_left ( + ) 0 (List.map (fun x -> x * 2) (List.init 10_000 (fun i -> i))) done; !t',
    run: 'list_loop ()',
  },
  'float loop (10 M sqrt, no allocation)': {
    define:
      'let float_loop () = let acc = ref 0.0 in for i = 1 to 10_000_000 do acc := !acc +. sqrt (float_of_int i) done; Float.round !acc',
    run: 'float_loop ()',
  },
};
const cpuTimed = (expr: string) => `let t0 = Sys.time () in ignore (Sys.opaque_identity (${expr})); (Sys.time () -. t0) *. 1000.`;

function median(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}
const ms = (x: number) => `${x.toFixed(x < 10 ? 3 : 1)} ms`;
const ratio = (x: number) => `${x.toFixed(2)}×`;

/** CPU time (ms) a process and its descendants have used so far, from Linux's per-thread
 *  scheduler statistics (nanoseconds); 0 for a process that is gone. */
function treeCpuMs(pid: number): number {
  let total = 0;
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  for (const tid of tids) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
      for (const child of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(' '))
        if (child) total += treeCpuMs(Number(child));
    } catch {
      // the thread ended meanwhile
    }
  }
  return total;
}
/** CPU time (ms) of this process. */
const selfCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const work = mkdtempSync(join(tmpdir(), 'topup-opt-bench-'));
try {
  // The plain programs: fib 32 printed (run as a process, like the eval call), and one printing the
  // CPU time of each compute workload.
  const defs = Object.values(COMPUTE)
    .map((w) => `${w.define}\n`)
    .join('');
  writeFileSync(join(work, 'fib.ml'), `${FIB}\nlet () = print_int (fib 32); Printf.eprintf "%.6f" (Sys.time ())\n`);
  writeFileSync(
    join(work, 'compute.ml'),
    `${defs}let () = List.iter (fun f -> Printf.printf "%.3f\\n" (f ())) [${Object.values(COMPUTE)
      .map((w) => `(fun () -> ${cpuTimed(w.run)})`)
      .join('; ')}]\n`,
  );
  for (const name of ['fib', 'compute'])
    execFileSync('ocamlfind', ['ocamlopt', '-package', 'stdlib', `${name}.ml`, '-o', name], { cwd: work });

  const clients = new Map<Bin, McpClient>();
  const serverPids = new Map<Bin, number>();
  for (const bin of BINS) {
    const { command, args } = binCommand(bin);
    const env = { ...process.env, TOPUP_LOG: join(work, `${bin}.ml`), TOPUP_CHECKPOINT_DIR: join(work, 'cp') };
    const { transport, child } = spawnStdio(command, args, { env, stderr: 'inherit' });
    serverPids.set(bin, child.pid!);
    const client = new McpClient({ name: 'bench', version: '1' }, { logger: silentLogger });
    await client.connect(transport, { timeoutMs: 300_000 });
    clients.set(bin, client);
  }
  const evalOn = async (bin: Bin, source: string): Promise<{ value_repr: string | null; error: unknown }> =>
    parseToolPayload(await clients.get(bin)!.callTool('eval', { source, timeout: 600 })) as { value_repr: string | null; error: unknown };
  const timed = async (fn: () => unknown): Promise<number> => {
    const t0 = process.hrtime.bigint();
    await fn();
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  for (const bin of BINS) {
    for (const w of Object.values(COMPUTE)) {
      const r = await evalOn(bin, w.define);
      if (r.error) throw new Error(`${bin}: ${JSON.stringify(r.error)}`);
    }
  }

  // CPU time of the whole chain of one bin: this client, its MCP server and every process under
  // it. Read as [start, end) so that reading /proc (done by this client) falls outside the window.
  const chainStart = (bin: Bin) => {
    const tree = treeCpuMs(serverPids.get(bin)!);
    return tree + selfCpuMs();
  };
  const chainEnd = (bin: Bin) => {
    const self = selfCpuMs();
    return self + treeCpuMs(serverPids.get(bin)!);
  };
  const trivial: Record<Bin, number[]> = { topup: [], 'topup-opt': [] };
  const trivialCpu: Record<Bin, number[]> = { topup: [], 'topup-opt': [] };
  const fibCall: Record<Bin | 'plain', number[]> = { topup: [], 'topup-opt': [], plain: [] };
  const fibCpu: Record<Bin | 'plain', number[]> = { topup: [], 'topup-opt': [], plain: [] };
  const compute = new Map<string, Record<Bin | 'plain', number[]>>();
  if (!BATCH_ONLY) {
    // Trivial phrase, one eval call each.
    for (let i = 0; i < 20 + ROUNDS * 40; i++) {
      for (const bin of BINS) {
        let answer: { value_repr: string | null } | undefined;
        const c0 = chainStart(bin);
        const t = await timed(async () => (answer = await evalOn(bin, 'let v = 1 + 1')));
        const c1 = chainEnd(bin);
        if (answer?.value_repr !== 'val v : int = 2') throw new Error(`${bin} trivial: ${JSON.stringify(answer)}`);
        if (i >= 20) {
          trivial[bin].push(t);
          trivialCpu[bin].push(c1 - c0);
        }
      }
    }

    // fib 32 as a whole eval call, and the plain program as a process.
    for (let i = 0; i < ROUNDS * 3; i++) {
      for (const bin of BINS) {
        let answer: { value_repr: string | null } | undefined;
        const c0 = chainStart(bin);
        fibCall[bin].push(await timed(async () => (answer = await evalOn(bin, 'fib 32'))));
        fibCpu[bin].push(chainEnd(bin) - c0);
        if (answer?.value_repr !== '2178309') throw new Error(`${bin} fib 32: ${JSON.stringify(answer)}`);
      }
      fibCall.plain.push(
        await timed(() => {
          const r = spawnSync(join(work, 'fib'), { encoding: 'utf8' });
          if (r.stdout !== '2178309') throw new Error(`plain fib: ${r.stdout}`);
          fibCpu.plain.push(Number(r.stderr) * 1000);
        }),
      );
    }

    // Compute workloads by CPU clock.
    for (const name of Object.keys(COMPUTE)) compute.set(name, { topup: [], 'topup-opt': [], plain: [] });
    for (let i = 0; i < ROUNDS; i++) {
      for (const [name, w] of Object.entries(COMPUTE)) {
        for (const bin of BINS) {
          if (bin === 'topup' && i >= 2) continue; // the bytecode side is slow and steady: two samples
          const r = await evalOn(bin, cpuTimed(w.run));
          if (r.error || r.value_repr === null) throw new Error(`${bin} ${name}: ${JSON.stringify(r)}`);
          compute.get(name)![bin].push(Number(r.value_repr));
        }
      }
      const lines = execFileSync(join(work, 'compute'), { encoding: 'utf8' }).trim().split('\n');
      for (const [k, name] of Object.keys(COMPUTE).entries()) compute.get(name)!.plain.push(Number(lines[k]));
    }
  }

  // eval_batch of 100 small phrases vs 100 separate calls.
  const sources = Array.from({ length: 100 }, (_, i) => `let b${i} = ${i} + 1`);
  const batch: Record<Bin, number[]> = { topup: [], 'topup-opt': [] };
  const separate: Record<Bin, number[]> = { topup: [], 'topup-opt': [] };
  const batchCpu: Record<Bin, number[]> = { topup: [], 'topup-opt': [] };
  const separateCpu: Record<Bin, number[]> = { topup: [], 'topup-opt': [] };
  for (let i = 0; i < ROUNDS + 1; i++) {
    for (const bin of BINS) {
      const client = clients.get(bin)!;
      const c0 = chainStart(bin);
      const b = await timed(async () => {
        const r = parseToolPayload(await client.callTool('eval_batch', { sources })) as { results?: unknown[] };
        if (r.results?.length !== sources.length) throw new Error(`${bin} eval_batch: ${JSON.stringify(r).slice(0, 300)}`);
      });
      const c1 = chainEnd(bin);
      const c1s = chainStart(bin);
      const s = await timed(async () => {
        for (const source of sources) await client.callTool('eval', { source });
      });
      const c2 = chainEnd(bin);
      if (i >= 1) {
        batch[bin].push(b / sources.length);
        separate[bin].push(s / sources.length);
        batchCpu[bin].push((c1 - c0) / sources.length);
        separateCpu[bin].push((c2 - c1s) / sources.length);
      }
    }
  }
  for (const client of clients.values()) await client.close();

  console.log(`topup-opt vs topup vs a plain ocamlopt program, MCP stdio, ${ROUNDS} rounds, interleaved (node ${process.version})`);
  console.log('');
  if (!BATCH_ONLY) {
    const tb = median(trivial.topup);
    const tn = median(trivial['topup-opt']);
    const tbc = median(trivialCpu.topup);
    const tnc = median(trivialCpu['topup-opt']);
    console.log('| trivial phrase `let v = 1 + 1`, one eval call | topup | topup-opt | topup-opt / topup |');
    console.log('|---|---|---|---|');
    console.log(`| median per call, wall | ${ms(tb)} | ${ms(tn)} | ${ratio(tn / tb)} |`);
    console.log(`| median per call, CPU of the chain | ${ms(tbc)} | ${ms(tnc)} | ${ratio(tnc / tbc)} |`);
    console.log('');
    const fb = median(fibCall.topup);
    const fn = median(fibCall['topup-opt']);
    const fp = median(fibCall.plain);
    console.log(
      '| `fib 32`, whole | topup eval call | topup-opt eval call | plain ocamlopt program (process) | topup / topup-opt | topup-opt / plain |',
    );
    console.log('|---|---|---|---|---|---|');
    console.log(
      `| median, wall | ${ms(fb)} | ${ms(fn)} | ${ms(fp)} | ${ratio(fb / fn)} | ${ratio(fn / fp)} (limit 1.5× + 2 ms = ${ms(1.5 * fp + 2)}) |`,
    );
    const fbc = median(fibCpu.topup);
    const fnc = median(fibCpu['topup-opt']);
    const fpc = median(fibCpu.plain);
    console.log(
      `| median, CPU (chain; program's own) | ${ms(fbc)} | ${ms(fnc)} | ${ms(fpc)} | ${ratio(fbc / fnc)} | ${ratio(fnc / fpc)} (limit 1.5× + 2 ms = ${ms(1.5 * fpc + 2)}) |`,
    );
    console.log('');
    console.log('| computation, own CPU clock | topup | topup-opt | plain ocamlopt | topup / topup-opt | topup-opt / plain |');
    console.log('|---|---|---|---|---|---|');
    for (const [name, s] of compute) {
      const b = median(s.topup);
      const n = median(s['topup-opt']);
      const p = median(s.plain);
      console.log(`| ${name} | ${ms(b)} | ${ms(n)} | ${ms(p)} | ${ratio(b / n)} | ${ratio(n / p)} |`);
    }
    console.log('');
  }
  console.log(
    '| 100 small phrases | eval_batch, per phrase | separate eval calls, per phrase | separate / batch | eval_batch, CPU per phrase | separate calls, CPU per phrase | separate / batch, CPU |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const bin of BINS) {
    const b = median(batch[bin]);
    const s = median(separate[bin]);
    const bc = median(batchCpu[bin]);
    const sc = median(separateCpu[bin]);
    console.log(`| ${bin} | ${ms(b)} | ${ms(s)} | ${ratio(s / b)} | ${ms(bc)} | ${ms(sc)} | ${ratio(sc / bc)} |`);
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
