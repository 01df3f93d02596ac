// Emulated CPU speed of the virtual C64 against the real PAL C64 (985 248 Hz), side by side in one
// run: the same cc65-compiled workload (a sieve of Eratosthenes in an endless loop, plus an
// acme-assembled loop over the indexed/indirect addressing modes), executed with no bus-cycle
// consumer, with a consumer that stores every debug-stream entry (what the UDP stream needs), and
// with an onExec hook (what the VICE monitor installs while checkpoints exist), and with eight
// sprites on and the stream stored (the VIC-II model stealing the most cycles it can).
//
//   node --import tsx bench/ultimate-cpu/cpu.ts [seconds-per-case]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { C64Machine, PAL_CLOCK_HZ } from '../../engines/ultimate/virtual/c64/machine.js';

const seconds = Number(process.argv[2] ?? 3);

function build(): { sieve: Uint8Array; modes: Uint8Array } {
  const dir = mkdtempSync(join(tmpdir(), 'ucpu-bench-'));
  try {
    writeFileSync(
      join(dir, 'sieve.c'),
      `
static unsigned char composite[2000];
int main(void) {
  unsigned i, j, count;
  for (;;) {
    count = 0;
    for (i = 0; i < 2000; ++i) composite[i] = 0;
    for (i = 2; i < 2000; ++i) {
      if (!composite[i]) { ++count; for (j = i + i; j < 2000; j += i) composite[j] = 1; }
    }
    *(volatile unsigned char *)0xD7FF = (unsigned char)count;
  }
  return 0;
}
`,
    );
    execFileSync('cl65', ['-t', 'c64', '-O', '-o', join(dir, 'sieve.prg'), join(dir, 'sieve.c')], { cwd: dir });
    writeFileSync(
      join(dir, 'modes.a'),
      `
!cpu 6510
* = $0801                       ; BASIC stub: run_prg types RUN whatever the load address
        !word next, 10
        !byte $9e
        !text "49152", 0
next:   !word 0
* = $c000
        lda #$00
        sta $fb
        lda #$20
        sta $fc
loop:   ldy #0
-       lda ($fb),y
        clc
        adc $3000,y
        sta $3100,y
        eor $40,x
        ror $3100,x
        inx
        iny
        bne -
        inc $d020
        jmp loop
`,
    );
    execFileSync('acme', ['-f', 'cbm', '-o', join(dir, 'modes.prg'), join(dir, 'modes.a')]);
    return {
      sieve: new Uint8Array(readFileSync(join(dir, 'sieve.prg'))),
      modes: new Uint8Array(readFileSync(join(dir, 'modes.prg'))),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Result {
  name: string;
  mhz: number;
  ratio: number;
  cpuMhz: number;
  cpuRatio: number;
}

function measure(name: string, prg: Uint8Array, configure: (m: C64Machine) => void): Result {
  const m = new C64Machine();
  m.runPrg(prg);
  configure(m); // after the reset, which clears the VIC registers
  m.run(2_000_000); // warm-up: JIT, and the program is past its start-up
  let cycles = 0;
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  let elapsed = 0;
  while (elapsed < seconds) {
    cycles += m.run(1_000_000);
    elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  }
  const used = process.cpuUsage(c0);
  const cpuSeconds = (used.user + used.system) / 1e6;
  const mhz = cycles / elapsed / 1e6;
  const cpuMhz = cycles / cpuSeconds / 1e6;
  return { name, mhz, ratio: (mhz * 1e6) / PAL_CLOCK_HZ, cpuMhz, cpuRatio: (cpuMhz * 1e6) / PAL_CLOCK_HZ };
}

const { sieve, modes } = build();
const sink = new Uint32Array(360 * 1024);
let fill = 0;
const collect = (e: number) => {
  sink[fill] = e;
  fill = fill + 1 === sink.length ? 0 : fill + 1;
};

const results: Result[] = [];
for (const [wname, prg] of [
  ['cc65 sieve', sieve],
  ['acme addressing modes', modes],
] as [string, Uint8Array][]) {
  results.push(measure(`${wname}, no bus consumer`, prg, () => {}));
  results.push(
    measure(`${wname}, every bus cycle stored`, prg, (m) => {
      m.onBusCycle = collect;
    }),
  );
  results.push(
    measure(`${wname}, onExec hook`, prg, (m) => {
      m.onExec = () => false;
    }),
  );
  results.push(
    measure(`${wname}, 8 sprites + stream`, prg, (m) => {
      m.onBusCycle = collect;
      // Eight sprites on (the display is on after the KERNAL's init): bad lines and sprite DMA.
      m.writeMem(0xd015, Uint8Array.of(0xff));
      for (let n = 0; n < 8; n++) m.writeMem(0xd001 + 2 * n, Uint8Array.of(0x60 + 8 * n));
    }),
  );
}

console.log(`real C64 (PAL): ${(PAL_CLOCK_HZ / 1e6).toFixed(3)} MHz; ${seconds} s per case; node ${process.version}`);
// wall clock is what a user sees; CPU time of this process is the cost, and is what stays
// comparable when other processes compete for the cores
console.log('case'.padEnd(48), 'MHz (wall)'.padStart(11), 'x C64'.padStart(7), 'MHz (CPU time)'.padStart(15), 'x C64'.padStart(7));
for (const r of results) {
  console.log(
    r.name.padEnd(48),
    r.mhz.toFixed(2).padStart(11),
    r.ratio.toFixed(1).padStart(7),
    r.cpuMhz.toFixed(2).padStart(15),
    r.cpuRatio.toFixed(1).padStart(7),
  );
}
const worst = Math.min(...results.map((r) => r.ratio));
console.log(`goal >= 10x real speed (wall clock) in every case: ${worst >= 10 ? 'met' : 'NOT met'} (worst ${worst.toFixed(1)}x)`);
