// Lispex benchmark: the tree evaluator and the bytecode VM side by side with BiwaScheme (npm,
// in this process) and Guile 3 interpreted (`guile --no-auto-compile`, timed inside Guile so
// startup is excluded) on the same programs. Prints the best of N runs per engine and the
// ratios the brief sets as goals (VM ≥ 3× tree, ≥ 10× BiwaScheme, within 2× of Guile).
//
//   node --import tsx bench/lispex/bench.ts [--runs 3] [--full] [--no-biwa] [--cpu] [--only 'fib(25);tak(18,12,6)']
//
// BiwaScheme takes minutes on fib(30); it is skipped there unless --full is given, and it is
// run once per program (the others: best of --runs).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LispexEvaluator } from '../../engines/lispex/index.js';
import { BENCH_LIMITS as LIMITS, PROGRAMS, type BenchProgram } from './programs.js';

const args = process.argv.slice(2);
const RUNS = Number(args[args.indexOf('--runs') + 1] ?? 3) || 3;
const FULL = args.includes('--full');
/** `--only 'fib(25);tak(18,12,6)'`: run just these programs. `--no-biwa`: skip BiwaScheme. */
const ONLY = args.includes('--only') ? new Set((args[args.indexOf('--only') + 1] ?? '').split(';')) : null;
const NO_BIWA = args.includes('--no-biwa');
/**
 * `--cpu`: measure CPU time instead of wall time (Lispex: process.cpuUsage around the run; Guile:
 * get-internal-run-time), so the ratios survive a machine loaded by other work.
 */
const CPU = args.includes('--cpu');

/** Milliseconds of wall time, or of this process's CPU time with --cpu, taken by `work`. */
function measure(work: () => void): number {
  if (CPU) {
    const before = process.cpuUsage();
    work();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000;
  }
  const t = performance.now();
  work();
  return performance.now() - t;
}

type Engine = 'vm' | 'tree' | 'biwascheme' | 'guile';

function best(times: number[]): number {
  return Math.min(...times);
}

function lispex(p: BenchProgram, route: 'tree' | 'vm'): number {
  const ev = new LispexEvaluator();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    let o: ReturnType<LispexEvaluator['run']> | undefined;
    times.push(
      measure(() => {
        o = ev.run(p.source, { route, limits: LIMITS });
      }),
    );
    if (o === undefined) throw new Error('no observation');
    const got = o.values.map((v) => v.printed).join(' ');
    if (o.status !== 'ok' || got !== p.expected)
      throw new Error(`${route} ${p.name}: ${o.status} ${got} ${o.diagnostics.map((d) => d.rendered)}`);
  }
  return best(times);
}

const require = createRequire(import.meta.url);
let biwa: { run(src: string): unknown } | null = null;
try {
  biwa = require('biwascheme') as { run(src: string): unknown };
} catch {
  biwa = null;
}

function biwascheme(p: BenchProgram): number | null {
  if (biwa === null || NO_BIWA) return null;
  if (p.name === 'fib(30)' && !FULL) return null;
  // One run: BiwaScheme is slow enough that one run dominates the whole benchmark already.
  const times: number[] = [];
  for (let i = 0; i < 1; i++) {
    const t = performance.now();
    const r = biwa.run(p.source);
    times.push(performance.now() - t);
    if (String(r) !== p.expected) throw new Error(`biwascheme ${p.name}: ${String(r)}`);
  }
  return best(times);
}

function guile(p: BenchProgram, dir: string): number | null {
  const file = join(dir, 'bench.scm');
  // Definitions first, then the timed final expression (startup and definition excluded).
  const lastOpen = p.source.lastIndexOf('\n(');
  const defs = p.source.slice(0, lastOpen);
  const expr = p.source.slice(lastOpen + 1);
  writeFileSync(
    file,
    `${defs}
(define (run-once) (let* ((t0 (${CPU ? 'get-internal-run-time' : 'get-internal-real-time'})) (v ${expr}) (t1 (${CPU ? 'get-internal-run-time' : 'get-internal-real-time'})))
  (write v) (display " ") (display (exact->inexact (/ (* 1000 (- t1 t0)) internal-time-units-per-second))) (newline)))
${Array.from({ length: RUNS }, () => '(run-once)').join('\n')}
`,
  );
  const r = spawnSync('guile', ['--no-auto-compile', file], { encoding: 'utf8', timeout: 600_000 });
  if (r.error !== undefined || r.status !== 0) return null;
  const times: number[] = [];
  for (const line of r.stdout.trim().split('\n')) {
    const [v, ms] = line.split(' ');
    if (v !== p.expected) throw new Error(`guile ${p.name}: ${line}`);
    times.push(Number(ms));
  }
  return best(times);
}

const fmt = (ms: number | null) => (ms === null ? 'n/a' : ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
const ratio = (a: number | null, b: number | null) => (a === null || b === null ? 'n/a' : `${(a / b).toFixed(2)}×`);

/** Let each in-process engine's JIT settle before anything is measured. */
function warmUp(): void {
  const ev = new LispexEvaluator();
  const src = '(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 22)';
  for (let i = 0; i < 3; i++) for (const route of ['vm', 'tree'] as const) ev.run(src, { route, limits: LIMITS });
  biwa?.run(src);
}

const dir = mkdtempSync(join(tmpdir(), 'lispex-bench-'));
try {
  warmUp();
  console.log(`Lispex benchmark — best of ${RUNS} runs, milliseconds of ${CPU ? 'CPU' : 'wall'} time (node ${process.version})`);
  console.log('| program | VM | tree | BiwaScheme | Guile 3 (interpreted) | tree/VM | BiwaScheme/VM | VM/Guile | tree/Guile |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const p of PROGRAMS.filter((q) => ONLY === null || ONLY.has(q.name))) {
    const r: Record<Engine, number | null> = {
      vm: lispex(p, 'vm'),
      tree: lispex(p, 'tree'),
      biwascheme: biwascheme(p),
      guile: guile(p, dir),
    };
    console.log(
      `| ${p.name} | ${fmt(r.vm)} | ${fmt(r.tree)} | ${fmt(r.biwascheme)} | ${fmt(r.guile)} | ${ratio(r.tree, r.vm)} | ${ratio(r.biwascheme, r.vm)} | ${ratio(r.vm, r.guile)} | ${ratio(r.tree, r.guile)} |`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
