// Build small programs with the real Debian assemblers (acme, 64tass, ca65 + ld65) in a temp
// dir, and hand back their PRG and label/map output as text.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function inTempDir<T>(files: Record<string, string>, run: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'ultimate-symbols-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const run = (dir: string, command: string, args: string[]) => execFileSync(command, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });

export interface Built {
  readonly prg: Buffer;
  readonly files: Record<string, string>;
}

/** acme --vicelabels */
export function buildAcme(source: string): Built {
  return inTempDir({ 'main.asm': source }, (dir) => {
    run(dir, 'acme', ['--format', 'cbm', '-o', 'main.prg', '--vicelabels', 'main.labels', 'main.asm']);
    return { prg: readFileSync(join(dir, 'main.prg')), files: { labels: readFileSync(join(dir, 'main.labels'), 'utf8') } };
  });
}

/** 64tass --vice-labels */
export function build64tass(source: string): Built {
  return inTempDir({ 'main.asm': source }, (dir) => {
    run(dir, '64tass', ['-q', '--vice-labels', '-l', 'main.labels', '-o', 'main.prg', 'main.asm']);
    return { prg: readFileSync(join(dir, 'main.prg')), files: { labels: readFileSync(join(dir, 'main.labels'), 'utf8') } };
  });
}

export const LD65_CONFIG = `MEMORY {
  LOADADDR: file = %O, start = $07FF, size = 2;
  MAIN: file = %O, start = $0801, size = $9000;
}
SEGMENTS {
  LOADADDR: load = LOADADDR, type = ro;
  STARTUP: load = MAIN, type = ro;
  CODE: load = MAIN, type = ro;
  RODATA: load = MAIN, type = ro;
  DATA: load = MAIN, type = rw;
}
`;

/** ca65 -g for each module, then ld65 -Ln and -m. Sources: object base name → text. */
export function buildCa65(modules: Record<string, string>): Built {
  const files: Record<string, string> = { 'c64.cfg': LD65_CONFIG, 'loadaddr.s': '.segment "LOADADDR"\n.word $0801\n' };
  for (const [name, text] of Object.entries(modules)) files[`${name}.s`] = text;
  return inTempDir(files, (dir) => {
    const objects = ['loadaddr', ...Object.keys(modules)];
    for (const o of objects) run(dir, 'ca65', ['-g', `${o}.s`, '-o', `${o}.o`]);
    run(dir, 'ld65', ['-C', 'c64.cfg', '-o', 'main.prg', '-Ln', 'main.lbl', '-m', 'main.map', ...objects.map((o) => `${o}.o`)]);
    return {
      prg: readFileSync(join(dir, 'main.prg')),
      files: { labels: readFileSync(join(dir, 'main.lbl'), 'utf8'), map: readFileSync(join(dir, 'main.map'), 'utf8') },
    };
  });
}

/** The byte at a C64 address of a PRG (two-byte load address first). */
export function byteAt(prg: Buffer, address: number): number | undefined {
  const load = prg.readUInt16LE(0);
  return prg[address - load + 2];
}

/** cl65 -t c64 on a C program: a real map with the C runtime's library modules. */
export function buildCl65C(source: string): Built {
  return inTempDir({ 'main.c': source }, (dir) => {
    run(dir, 'cl65', ['-t', 'c64', '-o', 'main.prg', '-m', 'main.map', '-Ln', 'main.lbl', 'main.c']);
    return {
      prg: readFileSync(join(dir, 'main.prg')),
      files: { labels: readFileSync(join(dir, 'main.lbl'), 'utf8'), map: readFileSync(join(dir, 'main.map'), 'utf8') },
    };
  });
}
