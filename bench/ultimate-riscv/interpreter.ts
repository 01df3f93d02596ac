// Benchmark: instructions per second of the RV32 interpreter (engines/ultimate/virtual/riscv) on a
// CPU-bound RV32I program compiled here with gcc -O2 -march=rv32i, side by side in the same run with
// a naive reference interpreter (naive-rv32.ts), both checked to compute the same result with the
// same instruction count. Reported beside the real Elite II core's 100 MHz clock.
//   node --import tsx bench/ultimate-riscv/interpreter.ts [runs] [rounds]   (default 5 runs, 400 rounds)
// `rounds` sizes the workload: 40 rounds ≈ 10.8 M instructions, 400 ≈ 108 M.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readElf32 } from '../../engines/ultimate/riscv-apps/elf32.js';
import { APP_REGION_BASE, APP_REGION_BYTES } from '../../engines/ultimate/riscv-apps/elite2-memory-map.js';
import { buildRiscvProgram } from '../../engines/ultimate/riscv-apps/riscv-toolchain.js';
import { Rv32Cpu } from '../../engines/ultimate/virtual/riscv/rv32-cpu.js';
import { NaiveRv32 } from './naive-rv32.js';

const REAL_CORE_HZ = 100_000_000;
const here = dirname(fileURLToPath(import.meta.url));
const pairs = Number(process.argv[2] ?? 5);
const rounds = Number(process.argv[3] ?? 400);

const built = await buildRiscvProgram({
  sources: { 'start.S': readFileSync(join(here, 'start.S'), 'utf8'), 'workload.c': readFileSync(join(here, 'workload.c'), 'utf8') },
  flags: ['-O2', `-DROUNDS=${rounds}`],
});
const program = readElf32(built.elf);

interface Sample {
  instructions: number;
  wallMs: number;
  cpuMs: number;
  result: number;
}

// One machine each, reset between runs (allocating 16 MiB per run would time the GC, not the loop).
// A reset drops compiled blocks too, so every run of the block tier starts cold, as a Run Update does.
const blockCpu = new Rv32Cpu({ ramBase: APP_REGION_BASE, ramBytes: APP_REGION_BYTES });
const stepCpu = new Rv32Cpu({ ramBase: APP_REGION_BASE, ramBytes: APP_REGION_BYTES });
stepCpu.useBlocks = false;
const naiveCpu = new NaiveRv32(APP_REGION_BASE, APP_REGION_BYTES);

function timed(run: () => { instructions: number; result: number }): Sample {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = run();
  const wallMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { ...r, wallMs, cpuMs: (c.user + c.system) / 1000 };
}

function runRv32(cpu: Rv32Cpu): Sample {
  cpu.reset();
  cpu.retired = 0;
  for (const s of program.segments) cpu.load(s.address, s.bytes);
  cpu.pc = program.entry;
  return timed(() => {
    const stop = cpu.run(Number.MAX_SAFE_INTEGER);
    if (stop.kind !== 'ecall') throw new Error(`interpreter stopped with ${JSON.stringify(stop)}`);
    return { instructions: cpu.retired, result: cpu.x[10]! >>> 0 };
  });
}

function runNaive(): Sample {
  const cpu = naiveCpu;
  cpu.reset();
  for (const s of program.segments) cpu.load(s.address, s.bytes);
  cpu.pc = program.entry;
  return timed(() => {
    if (!cpu.run(Number.MAX_SAFE_INTEGER)) throw new Error('naive interpreter did not reach the ECALL');
    return { instructions: cpu.retired, result: cpu.x[10]! >>> 0 };
  });
}

const contenders: Array<{ name: string; run: () => Sample; samples: Sample[] }> = [
  { name: 'block tier + decode cache (rv32-cpu.ts, default)', run: () => runRv32(blockCpu), samples: [] },
  { name: 'decode cache only (rv32-cpu.ts, useBlocks = false)', run: () => runRv32(stepCpu), samples: [] },
  { name: 'naive switch, DataView (naive-rv32.ts)', run: runNaive, samples: [] },
];

// Warm up (JIT) and check that all agree on the result and the instruction count.
const first = contenders.map((c) => c.run());
for (const f of first) {
  if (f.result !== first[0]!.result || f.instructions !== first[0]!.instructions) {
    throw new Error(`interpreters disagree: ${first.map((x) => `${x.result}/${x.instructions}`).join(', ')}`);
  }
}
// Round-robin, so load from other processes falls on all alike.
for (let i = 0; i < pairs; i++) for (const c of contenders) c.samples.push(c.run());

const rate = (s: Sample[], key: 'wallMs' | 'cpuMs') => {
  const instr = s.reduce((n, x) => n + x.instructions, 0);
  const ms = s.reduce((n, x) => n + x[key], 0);
  return instr / ms / 1000; // million instructions per second
};
const best = (s: Sample[]) => Math.max(...s.map((x) => x.instructions / x.wallMs / 1000));
const pct = (mips: number) => `${((mips * 1e6 * 100) / REAL_CORE_HZ).toFixed(0)}%`;
const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
const naive = contenders[2]!;
const lines = [
  `workload: ${first[0]!.instructions.toLocaleString('en')} RV32I instructions per run (result 0x${first[0]!.result.toString(16)}), ${pairs} runs each, round-robin; node ${process.version}`,
  '',
  row(['interpreter', 'M instr/s (wall)', 'best run (wall)', 'M instr/s (CPU time)', 'wall vs 100 MHz', '× naive (wall)', '× naive (CPU)']),
  row(['---', '---:', '---:', '---:', '---:', '---:', '---:']),
];
for (const c of contenders) {
  const w = rate(c.samples, 'wallMs');
  const cpu = rate(c.samples, 'cpuMs');
  lines.push(
    row([
      c.name,
      w.toFixed(1),
      best(c.samples).toFixed(1),
      cpu.toFixed(1),
      pct(w),
      (w / rate(naive.samples, 'wallMs')).toFixed(2),
      (cpu / rate(naive.samples, 'cpuMs')).toFixed(2),
    ]),
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
