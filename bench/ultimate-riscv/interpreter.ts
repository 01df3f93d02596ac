// Benchmark: instructions per second of the RV32 interpreter (engines/ultimate/virtual/native) on a
// CPU-bound RV32I program compiled here with gcc -O2 -march=rv32i, side by side in the same run with
// a naive reference interpreter (naive-rv32.ts), both checked to compute the same result with the
// same instruction count. Reported beside the real Elite II core's 100 MHz clock.
//   node --import tsx bench/ultimate-riscv/interpreter.ts [pairs]      (default 5 pairs)
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readElf32 } from '../../engines/ultimate/native/elf32.js';
import { APP_REGION_BASE, APP_REGION_BYTES } from '../../engines/ultimate/native/elite2-memory-map.js';
import { buildRiscvProgram } from '../../engines/ultimate/native/riscv-toolchain.js';
import { Rv32Cpu } from '../../engines/ultimate/virtual/native/rv32-cpu.js';
import { NaiveRv32 } from './naive-rv32.js';

const REAL_CORE_HZ = 100_000_000;
const here = dirname(fileURLToPath(import.meta.url));
const pairs = Number(process.argv[2] ?? 5);

const built = await buildRiscvProgram({
  sources: { 'start.S': readFileSync(join(here, 'start.S'), 'utf8'), 'workload.c': readFileSync(join(here, 'workload.c'), 'utf8') },
  flags: ['-O2', `-DROUNDS=${process.env.RV_ROUNDS ?? 40}`],
});
const program = readElf32(built.elf);

interface Sample {
  instructions: number;
  wallMs: number;
  cpuMs: number;
  result: number;
}

// One machine each, reset between runs (allocating 16 MiB per run would time the GC, not the loop).
const fastCpu = new Rv32Cpu({ ramBase: APP_REGION_BASE, ramBytes: APP_REGION_BYTES });
const naiveCpu = new NaiveRv32(APP_REGION_BASE, APP_REGION_BYTES);

function runFast(): Sample {
  const cpu = fastCpu;
  cpu.reset();
  cpu.retired = 0;
  for (const s of program.segments) cpu.load(s.address, s.bytes);
  cpu.pc = program.entry;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const stop = cpu.run(Number.MAX_SAFE_INTEGER);
  const wallMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  if (stop.kind !== 'ecall') throw new Error(`fast interpreter stopped with ${JSON.stringify(stop)}`);
  return { instructions: cpu.retired, wallMs, cpuMs: (c.user + c.system) / 1000, result: cpu.x[10]! >>> 0 };
}

function runNaive(): Sample {
  const cpu = naiveCpu;
  cpu.reset();
  for (const s of program.segments) cpu.load(s.address, s.bytes);
  cpu.pc = program.entry;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  if (!cpu.run(Number.MAX_SAFE_INTEGER)) throw new Error('naive interpreter did not reach the ECALL');
  const wallMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { instructions: cpu.retired, wallMs, cpuMs: (c.user + c.system) / 1000, result: cpu.x[10]! >>> 0 };
}

// Warm both up (JIT), check they agree.
const f0 = runFast();
const n0 = runNaive();
if (f0.result !== n0.result || f0.instructions !== n0.instructions) {
  throw new Error(`interpreters disagree: fast ${f0.result}/${f0.instructions}, naive ${n0.result}/${n0.instructions}`);
}

const fast: Sample[] = [];
const naive: Sample[] = [];
for (let i = 0; i < pairs; i++) {
  // Alternate, so load from other processes falls on both alike.
  fast.push(runFast());
  naive.push(runNaive());
}

const rate = (s: Sample[], key: 'wallMs' | 'cpuMs') => {
  const instr = s.reduce((n, x) => n + x.instructions, 0);
  const ms = s.reduce((n, x) => n + x[key], 0);
  return instr / ms / 1000; // million instructions per second
};
const best = (s: Sample[]) => Math.max(...s.map((x) => x.instructions / x.wallMs / 1000));

const fw = rate(fast, 'wallMs');
const fc = rate(fast, 'cpuMs');
const nw = rate(naive, 'wallMs');
const nc = rate(naive, 'cpuMs');
const pct = (mips: number) => `${((mips * 1e6 * 100) / REAL_CORE_HZ).toFixed(0)}%`;
const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
process.stdout.write(
  [
    `workload: ${f0.instructions.toLocaleString('en')} RV32I instructions per run (result 0x${f0.result.toString(16)}), ${pairs} runs each, alternating; node ${process.version}`,
    '',
    row(['interpreter', 'M instr/s (wall)', 'best run (wall)', 'M instr/s (CPU time)', 'vs 100 MHz clock (wall)']),
    row(['---', '---:', '---:', '---:', '---:']),
    row(['decode cache (rv32-cpu.ts)', fw.toFixed(1), best(fast).toFixed(1), fc.toFixed(1), pct(fw)]),
    row(['naive switch (naive-rv32.ts)', nw.toFixed(1), best(naive).toFixed(1), nc.toFixed(1), pct(nw)]),
    '',
    `speed-up of the decode cache over the naive loop: ${(fw / nw).toFixed(2)}× (wall), ${(fc / nc).toFixed(2)}× (CPU time)`,
    '',
  ].join('\n'),
);
