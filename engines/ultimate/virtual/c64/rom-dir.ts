// Real C64 ROM images from a folder, by the file names VICE uses (its C64/ data folder). No
// Commodore ROM ships with this package: the user points at a folder they have.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { C64Roms } from './machine.js';

/** VICE's file names for the ROMs of a C64 with the last KERNAL revision. */
export const VICE_ROM_FILES = {
  kernal: 'kernal-901227-03.bin',
  basic: 'basic-901226-01.bin',
  chargen: 'chargen-901225-01.bin',
} as const;

const SIZES = { kernal: 0x2000, basic: 0x2000, chargen: 0x1000 } as const;

/** Reads the three images from `dir`; a missing or wrongly sized file is an error naming it. */
export function loadRomDir(dir: string): C64Roms {
  const read = (key: keyof typeof VICE_ROM_FILES): Uint8Array => {
    const path = join(dir, VICE_ROM_FILES[key]);
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch (e) {
      throw new Error(`ROM folder ${dir}: cannot read the ${key} ROM ${VICE_ROM_FILES[key]} (${(e as Error).message})`);
    }
    if (bytes.length !== SIZES[key]) {
      throw new Error(`ROM folder ${dir}: ${VICE_ROM_FILES[key]} is ${bytes.length} bytes; a ${key} ROM is ${SIZES[key]}`);
    }
    return new Uint8Array(bytes);
  };
  return { kernal: read('kernal'), basic: read('basic'), chargen: read('chargen') };
}
