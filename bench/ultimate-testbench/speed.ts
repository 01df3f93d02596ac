// Speed of the virtual C64 with everything of issue 25 on, side by side with the real x64sc in
// warp mode on the same program for the same number of clocks: a PRG that keeps all eight sprites
// on (bad lines and sprite DMA stealing cycles, collisions evaluated as the collision interrupt
// is enabled) and moves 256 bytes through a 512 KiB REU in both directions every pass, with
// VICE's ROMs when present (the stand-in otherwise). Reported as emulated MHz and as a multiple of
// the real PAL C64 (0.985 MHz); x64sc's time includes its start-up, so the clock count is large.
//
//   node --import tsx bench/ultimate-testbench/speed.ts [million-clocks]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { C64Machine, PAL_CLOCK_HZ } from '../../engines/ultimate/virtual/c64/machine.js';
import { loadRomDir, VICE_ROM_FILES } from '../../engines/ultimate/virtual/c64/rom-dir.js';
import { defaultViceRomDir } from './testbench.js';

const clocks = Number(process.argv[2] ?? 100) * 1e6;
const x64sc = resolve(defaultViceRomDir(), '..', 'x64sc');

const SOURCE = `
!cpu 6510
* = $0801
        !word next, 10
        !byte $9e
        !text "2061", 0
next:   !word 0
        sei
        lda #$ff
        sta $d015          ; eight sprites
        ldx #15
-       lda #100
        sta $d000,x
        dex
        bpl -
        lda #$06
        sta $d01a          ; collision interrupts enabled (not acknowledged: the CPU has I set)
        ldx #0
-       lda #$ff
        sta $3000,x        ; sprite data
        dex
        bne -
loop:   lda #0
        sta $df02
        lda #$30
        sta $df03          ; C64 $3000
        lda #0
        sta $df04
        sta $df05
        sta $df06          ; REU $000000
        sta $df07
        lda #1
        sta $df08          ; 256 bytes
        lda #$90
        sta $df01          ; stash now
        lda #$91
        sta $df01          ; fetch now
        lda $d01e
        inc $d020
        jmp loop
`;

function build(): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), 'testbench-speed-'));
  try {
    writeFileSync(join(dir, 'speed.a'), SOURCE);
    execFileSync('acme', ['-f', 'cbm', '-o', join(dir, 'speed.prg'), join(dir, 'speed.a')]);
    return new Uint8Array(readFileSync(join(dir, 'speed.prg')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const prg = build();
const romDir = defaultViceRomDir();
const roms = existsSync(join(romDir, VICE_ROM_FILES.kernal)) ? loadRomDir(romDir) : undefined;

const t0 = process.hrtime.bigint();
const cpu0 = process.cpuUsage();
const m = new C64Machine({ reuKb: 512, roms });
m.runPrg(prg);
m.run(clocks - m.cpu.cycles);
const ours = Number(process.hrtime.bigint() - t0) / 1e9;
const oursMhz = m.cpu.cycles / ours / 1e6;
const cpuUsed = process.cpuUsage(cpu0);
const oursCpu = (cpuUsed.user + cpuUsed.system) / 1e6;
const oursCpuMhz = m.cpu.cycles / oursCpu / 1e6;
console.log(
  `virtual C64 (${roms ? "VICE's ROMs" : 'stand-in ROMs'}, REU 512 KiB, 8 sprites): ${m.cpu.cycles} clocks in ${ours.toFixed(2)} s`,
);
console.log(
  `  ${oursMhz.toFixed(1)} MHz = ${(oursMhz / (PAL_CLOCK_HZ / 1e6)).toFixed(1)}× a PAL C64 (wall); ${oursCpu.toFixed(2)} s CPU time = ${(oursCpuMhz / (PAL_CLOCK_HZ / 1e6)).toFixed(1)}×`,
);

if (existsSync(x64sc)) {
  const dir = mkdtempSync(join(tmpdir(), 'testbench-speed-'));
  try {
    const file = join(dir, 'speed.prg');
    writeFileSync(file, prg);
    const t1 = process.hrtime.bigint();
    // The shell's \`times\` reports the CPU time of its child, x64sc (second line: user and system).
    const flags = [
      '-default',
      '-warp',
      '+sound',
      '-reu',
      '-reusize',
      '512',
      '-limitcycles',
      String(clocks),
      '-autostartprgmode',
      '1',
      '-autostart',
      file,
    ];
    const out = spawnSync('sh', ['-c', '"$0" "$@" >/dev/null 2>&1; times', x64sc, ...flags], { encoding: 'utf8', timeout: 600_000 });
    const theirs = Number(process.hrtime.bigint() - t1) / 1e9;
    const childLine = (out.stdout ?? '').trim().split('\n')[1] ?? '';
    let theirCpu = 0;
    for (const t of childLine.split(/\s+/)) {
      const mm = /^(\d+)m([\d.]+)s$/.exec(t);
      if (mm) theirCpu += Number(mm[1]) * 60 + Number(mm[2]);
    }
    const theirMhz = clocks / theirs / 1e6;
    const theirCpuMhz = clocks / theirCpu / 1e6;
    const pal = PAL_CLOCK_HZ / 1e6;
    console.log(`x64sc -warp, same program and clocks: ${theirs.toFixed(2)} s, ${theirCpu.toFixed(2)} s CPU time`);
    console.log(
      `  ${theirMhz.toFixed(1)} MHz = ${(theirMhz / pal).toFixed(1)}× a PAL C64 (wall); ${(theirCpuMhz / pal).toFixed(1)}× (CPU time)`,
    );
    console.log(`virtual C64 / x64sc: ${(oursMhz / theirMhz).toFixed(2)} (wall), ${(oursCpuMhz / theirCpuMhz).toFixed(2)} (CPU time)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else console.log(`x64sc absent at ${x64sc}: no comparison`);
