// Building freestanding RV32I programs for the Ultimate 64 Elite II with Debian's cross toolchain
// (gcc-riscv64-unknown-elf / binutils-riscv64-unknown-elf). The firmware's own applications are
// built for rv32i/ilp32 and linked at the application region (target/u64ii/riscv/update/linker.x:
// ORIGIN 0x03000000, LENGTH 16 MiB); our programs use the same, through the linker script below.
// Multiplication and division in C go through libgcc (-lgcc), since rv32i has no M instructions.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runInProcessGroup } from '../../../common/index.js';
import { APP_REGION_BASE, APP_REGION_BYTES } from './elite2-memory-map.js';

const run = promisify(execFile);
/** gcc's diagnostics kept for the error message. */
const GCC_STDERR_CAP = 64 * 1024;

export const RISCV_GCC = 'riscv64-unknown-elf-gcc';
export const RISCV_NM = 'riscv64-unknown-elf-nm';

/** Flags for every build: the Elite II's ISA and ABI, no hosted library, no start files. */
export const RISCV_FLAGS = ['-march=rv32i', '-mabi=ilp32', '-ffreestanding', '-nostdlib', '-nostartfiles', '-static'];

/**
 * The linker script of our native programs: code first (the `.text.start` section, where `_start`
 * lives, leads), then data and zeroed .bss, all inside the application region; the stack starts at
 * the top of the region. `__utr2_mailbox` is not here: the token comes through C64 memory (see
 * docs/ultimate/NATIVE.md), which needs no fixed native address.
 */
export const APP_LINKER_SCRIPT = `OUTPUT_ARCH(riscv)
ENTRY(_start)
MEMORY { APP (rwx) : ORIGIN = 0x${APP_REGION_BASE.toString(16)}, LENGTH = 0x${APP_REGION_BYTES.toString(16)} }
SECTIONS {
  .text : { KEEP(*(.text.start)) *(.text .text.*) } > APP
  .rodata : ALIGN(4) { *(.rodata .rodata.* .srodata .srodata.*) } > APP
  .data : ALIGN(4) { *(.data .data.* .sdata .sdata.*) } > APP
  .bss (NOLOAD) : ALIGN(4) { __bss_start = .; *(.bss .bss.* .sbss .sbss.* COMMON) . = ALIGN(4); __bss_end = .; } > APP
  __stack_top = ORIGIN(APP) + LENGTH(APP);
  /DISCARD/ : { *(.comment) *(.riscv.attributes) *(.note*) *(.eh_frame*) }
}
`;

export class ToolchainError extends Error {
  override readonly name = 'ToolchainError';
}

export interface BuildInput {
  /** Source files by name (`.c`, `.S`, `.s`, or `.h` headers they include), with their text. */
  sources: Record<string, string>;
  /** Extra compiler flags (e.g. `-O2`). */
  flags?: string[];
  /** The compiler and its children are killed (SIGKILL to the process group) after this many ms and the build fails (default: no limit). */
  timeoutMs?: number;
}

export interface BuildOutput {
  /** The linked ELF32 executable. */
  elf: Uint8Array;
  /** Symbol name → address, from nm. */
  symbols: Map<string, number>;
}

/** Compiles and links `sources` into one RV32I ELF; throws ToolchainError with gcc's output on failure. */
export async function buildRiscvProgram(input: BuildInput): Promise<BuildOutput> {
  const dir = await mkdtemp(join(tmpdir(), 'rv32-build-'));
  try {
    const files: string[] = [];
    for (const [name, text] of Object.entries(input.sources)) {
      if (!/^[\w.-]+\.(c|S|s|h)$/.test(name))
        throw new ToolchainError(`source name ${JSON.stringify(name)}: expected a plain file name ending .c, .S, .s or .h`);
      await writeFile(join(dir, name), text);
      if (!name.endsWith('.h')) files.push(join(dir, name));
    }
    await writeFile(join(dir, 'app.ld'), APP_LINKER_SCRIPT);
    const out = join(dir, 'program.elf');
    // gcc runs cc1, as and ld as its children: the time limit kills the whole process group.
    const stderr: Buffer[] = [];
    let stderrBytes = 0;
    const outcome = await runInProcessGroup(
      RISCV_GCC,
      [...RISCV_FLAGS, ...(input.flags ?? []), '-T', join(dir, 'app.ld'), '-o', out, ...files, '-lgcc'],
      {
        timeoutMs: input.timeoutMs ?? 0,
        onStderr: (b) => {
          if (stderrBytes < GCC_STDERR_CAP) stderr.push(b.subarray(0, GCC_STDERR_CAP - stderrBytes));
          stderrBytes += b.length;
        },
      },
    );
    if (!outcome.started) {
      if (outcome.error.code === 'ENOENT')
        throw new ToolchainError(
          `${RISCV_GCC} not found: install the Debian packages gcc-riscv64-unknown-elf and binutils-riscv64-unknown-elf`,
        );
      throw new ToolchainError(`${RISCV_GCC} could not start: ${outcome.error.message}`);
    }
    if (outcome.timedOut)
      throw new ToolchainError(`building the RISC-V program took longer than ${input.timeoutMs} ms; the compiler was stopped`);
    if (outcome.code !== 0)
      throw new ToolchainError(
        `building the RISC-V program failed (${outcome.signal ?? `exit ${outcome.code}`}):\n${Buffer.concat(stderr).toString('utf8')}`,
      );
    const { stdout } = await run(RISCV_NM, [out]);
    const symbols = new Map<string, number>();
    for (const line of stdout.split('\n')) {
      const m = /^([0-9a-f]+) \w (\S+)$/.exec(line.trim());
      if (m) symbols.set(m[2]!, parseInt(m[1]!, 16));
    }
    return { elf: new Uint8Array(await readFile(out)), symbols };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
