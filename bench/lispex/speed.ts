// Issue 34's goals side by side in one run, on a shared machine: rounds interleave Lispex and its
// peer, and every figure is a median over the rounds.
//
//   npm run build && node --import tsx bench/lispex/speed.ts [--rounds 5] [--calls 200] [--no-mcp] [--no-process]
//
// 1. The tree route against Guile 3.0 interpreted (`guile --no-auto-compile`) on SPEED_PROGRAMS
//    (fib 30, tak 22 16 8, a merge sort): the built engine that `lispex run` executes
//    (dist/engines/lispex/index.js, in this process, after a warm-up) timed around
//    `LispexEvaluator.run` (reading, normalizing and compiling included), and Guile timed inside
//    Guile around the final expression (its start-up and definitions excluded) — CPU time and wall
//    time on both sides. Then the whole processes, `lispex run FILE` against `guile
//    --no-auto-compile FILE`, wall time (start-up included on both sides).
// 2. `lispex_eval (+ 1 2)` against the `echo` tool of the package's example server, both through
//    the official SDK client over stdio, back to back and interleaved call by call (the first
//    part of bench/lispex/mcp-latency.ts, once per round).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { BENCH_LIMITS as LIMITS, SPEED_PROGRAMS, type BenchProgram } from './programs.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) || fallback : fallback;
};
const ROUNDS = option('--rounds', 5);
const CALLS = option('--calls', 200);
const NO_MCP = args.includes('--no-mcp');
const NO_PROCESS = args.includes('--no-process');

const DIST_ENGINE = new URL('../../dist/engines/lispex/index.js', import.meta.url).href;
const LISPEX_BIN = fileURLToPath(new URL('../../dist/bin/lispex.js', import.meta.url));
const MCP_LATENCY = fileURLToPath(new URL('./mcp-latency.ts', import.meta.url));

interface Evaluator {
  run(source: string, options: { route: 'tree'; limits: Record<string, number> }): { status: string; values: Array<{ printed: string }> };
}
const { LispexEvaluator } = (await import(DIST_ENGINE)) as { LispexEvaluator: new () => Evaluator };

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const fmt = (ms: number): string => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;
const loadavg = (): string => {
  const r = spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' });
  return r.stdout.split(' ').slice(0, 3).join(' ');
};

interface Sample {
  cpu: number;
  wall: number;
}

const evaluator = new LispexEvaluator();
function lispexOnce(p: BenchProgram): Sample {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const o = evaluator.run(p.source, { route: 'tree', limits: LIMITS });
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const got = o.values.map((v) => v.printed).join(' ');
  if (o.status !== 'ok' || got !== p.expected) throw new Error(`lispex ${p.name}: ${o.status} ${got}`);
  return { cpu: (c.user + c.system) / 1000, wall };
}

const dir = mkdtempSync(join(tmpdir(), 'lispex-speed-'));
/** Guile's own timing of the final expression, CPU and wall, in one guile process. */
function guileOnce(p: BenchProgram): Sample {
  const file = join(dir, 'timed.scm');
  const lastOpen = p.source.lastIndexOf('\n(');
  writeFileSync(
    file,
    `${p.source.slice(0, lastOpen)}
(let* ((c0 (get-internal-run-time)) (t0 (get-internal-real-time)) (v ${p.source.slice(lastOpen + 1)})
       (t1 (get-internal-real-time)) (c1 (get-internal-run-time)))
  (write v) (display " ") (display (exact->inexact (/ (* 1000 (- c1 c0)) internal-time-units-per-second)))
  (display " ") (display (exact->inexact (/ (* 1000 (- t1 t0)) internal-time-units-per-second))) (newline))
`,
  );
  const r = spawnSync('guile', ['--no-auto-compile', file], { encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0) throw new Error(`guile ${p.name}: ${r.stderr}`);
  const [v, cpu, wall] = r.stdout.trim().split(' ');
  if (v !== p.expected) throw new Error(`guile ${p.name}: ${r.stdout}`);
  return { cpu: Number(cpu), wall: Number(wall) };
}

/** Wall time of a whole process that prints the expected value. */
function processOnce(command: string, argv: string[], p: BenchProgram): number {
  const t0 = performance.now();
  const r = spawnSync(command, argv, { encoding: 'utf8', timeout: 600_000 });
  const wall = performance.now() - t0;
  if (r.status !== 0 || r.stdout.trim() !== p.expected) throw new Error(`${command} ${p.name}: ${r.status} ${r.stdout} ${r.stderr}`);
  return wall;
}

try {
  console.log(`Issue 34 speed run — ${ROUNDS} rounds, medians; node ${process.version}; load average at start ${loadavg()}`);
  // Warm-up: the JIT settles on the evaluator before anything is timed.
  for (const p of SPEED_PROGRAMS) lispexOnce(p);

  const tree = new Map<string, Sample[]>();
  const guile = new Map<string, Sample[]>();
  const runProc = new Map<string, number[]>();
  const guileProc = new Map<string, number[]>();
  const files = new Map<string, string>();
  for (const p of SPEED_PROGRAMS) {
    const file = join(dir, `${p.name.replace(/[^a-z0-9]/gi, '_')}.scm`);
    // `lispex run` writes the last form's values; Guile is told to write it.
    writeFileSync(file, p.source);
    writeFileSync(
      `${file}.guile.scm`,
      `${p.source.slice(0, p.source.lastIndexOf('\n('))}\n(write ${p.source.slice(p.source.lastIndexOf('\n(') + 1)})\n(newline)\n`,
    );
    files.set(p.name, file);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const p of SPEED_PROGRAMS) {
      // Alternate which side goes first, so neither always meets the same neighbour.
      const order = round % 2 === 0 ? ['lispex', 'guile'] : ['guile', 'lispex'];
      for (const side of order) {
        if (side === 'lispex') tree.set(p.name, [...(tree.get(p.name) ?? []), lispexOnce(p)]);
        else guile.set(p.name, [...(guile.get(p.name) ?? []), guileOnce(p)]);
      }
      if (!NO_PROCESS) {
        const file = files.get(p.name)!;
        for (const side of order) {
          if (side === 'lispex')
            runProc.set(p.name, [...(runProc.get(p.name) ?? []), processOnce(process.execPath, [LISPEX_BIN, 'run', file], p)]);
          else
            guileProc.set(p.name, [...(guileProc.get(p.name) ?? []), processOnce('guile', ['--no-auto-compile', `${file}.guile.scm`], p)]);
        }
      }
    }
  }
  console.log('');
  console.log(
    'Tree route (the built engine of `lispex run`, in process) vs Guile 3 interpreted (timed inside Guile), milliseconds, median:',
  );
  console.log('| program | tree CPU | Guile CPU | tree/Guile CPU | tree wall | Guile wall | tree/Guile wall |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const p of SPEED_PROGRAMS) {
    const t = tree.get(p.name)!;
    const g = guile.get(p.name)!;
    const tc = median(t.map((s) => s.cpu));
    const gc = median(g.map((s) => s.cpu));
    const tw = median(t.map((s) => s.wall));
    const gw = median(g.map((s) => s.wall));
    console.log(`| ${p.name} | ${fmt(tc)} | ${fmt(gc)} | ${ratio(tc, gc)} | ${fmt(tw)} | ${fmt(gw)} | ${ratio(tw, gw)} |`);
  }
  if (!NO_PROCESS) {
    console.log('');
    console.log('Whole processes, wall milliseconds, median (start-up included on both sides):');
    console.log('| program | `lispex run` | `guile --no-auto-compile` | ratio |');
    console.log('|---|---:|---:|---:|');
    for (const p of SPEED_PROGRAMS) {
      const l = median(runProc.get(p.name)!);
      const g = median(guileProc.get(p.name)!);
      console.log(`| ${p.name} | ${fmt(l)} | ${fmt(g)} | ${ratio(l, g)} |`);
    }
  }
  if (!NO_MCP) {
    console.log('');
    console.log(`MCP, official SDK client over stdio, ${CALLS} back-to-back calls of each interleaved, per round:`);
    const evalMs: number[] = [];
    const echoMs: number[] = [];
    const workerMs: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const r = spawnSync(process.execPath, ['--import', 'tsx', MCP_LATENCY, '--calls', String(CALLS), '--calls-only'], {
        encoding: 'utf8',
        timeout: 600_000,
      });
      if (r.status !== 0) throw new Error(`mcp-latency: ${r.stderr}`);
      const e = /lispex_eval \(\+ 1 2\) back to back x\d+: median ([\d.]+) ms/.exec(r.stdout);
      const h = /echo \(example server\) back to back x\d+: median ([\d.]+) ms/.exec(r.stdout);
      const w = /lispex_eval .* \(through a worker\) back to back x\d+: median ([\d.]+) ms/.exec(r.stdout);
      if (e === null || h === null || w === null) throw new Error(`mcp-latency output not understood: ${r.stdout}`);
      evalMs.push(Number(e[1]));
      echoMs.push(Number(h[1]));
      workerMs.push(Number(w[1]));
      console.log(
        `  round ${round + 1}: lispex_eval ${e[1]} ms, echo ${h[1]} ms, ratio ${ratio(Number(e[1]), Number(h[1]))}; a program through the worker ${w[1]} ms, ${ratio(Number(w[1]), Number(h[1]))}`,
      );
    }
    const e = median(evalMs);
    const h = median(echoMs);
    // The load moves both sides together within a round, not across rounds: the ratio is taken
    // per round, then its median.
    const r = median(evalMs.map((x, i) => x / echoMs[i]!));
    console.log("| lispex_eval (+ 1 2), median of rounds | echo, median of rounds | eval/echo, median of the rounds' ratios |");
    console.log(`|---:|---:|---:|\n| ${e.toFixed(2)} ms | ${h.toFixed(2)} ms | ${r.toFixed(2)}× |`);
    const rw = median(workerMs.map((x, i) => x / echoMs[i]!));
    console.log(
      `a program the inline gate sends to a worker (it defines a procedure): ${median(workerMs).toFixed(2)} ms, ${rw.toFixed(2)}× the echo`,
    );
  }
  console.log('');
  console.log(`load average at the end ${loadavg()}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
