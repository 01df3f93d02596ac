import { DEBUG_STREAM_MODES } from '../c64/debug-stream-mode.js';
import { strtol } from './strtol.js';

// The virtual device's configuration categories and items (a small subset of the firmware's,
// the ones the device client and the REU/stream paths use). Values are validated like the
// firmware's enumerations and integer ranges.
export type ConfigItem =
  | { kind: 'enum'; current: string; default: string; values: string[] }
  | { kind: 'int'; current: number; default: number; min: number; max: number }
  | { kind: 'string'; current: string; default: string; maxLength: number };

function en(def: string, values: string[]): ConfigItem {
  return { kind: 'enum', current: def, default: def, values };
}
function str(def: string, maxLength = 64): ConfigItem {
  return { kind: 'string', current: def, default: def, maxLength };
}

/** The "REU Preload Offset" choices and the byte offsets they stand for. */
export const REU_PRELOAD_OFFSETS = new Map<string, number>([
  ['0 KB', 0],
  ['128 KB', 0x20000],
  ['256 KB', 0x40000],
  ['512 KB', 0x80000],
  ['1 MB', 0x100000],
  ['2 MB', 0x200000],
  ['4 MB', 0x400000],
  ['8 MB', 0x800000],
  ['16 MB', 0x1000000],
]);

/** Shell-style match as the firmware's config lookup does it: `*`, `?`, case-insensitive. */
export function wildcardMatch(pattern: string, name: string): boolean {
  const re = new RegExp(
    `^${[...pattern].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('')}$`,
    'i',
  );
  return re.test(name);
}

/** The firmware's "System Mode" choices (u64_config.cc): the 50 Hz family runs PAL timing, the 60 Hz family NTSC. */
export const SYSTEM_MODES = ['PAL', 'NTSC', 'PAL-60', 'NTSC-50', 'PAL-60/L', 'NTSC-50/L'] as const;
export const U64_CATEGORY = 'U64 Specific Settings';
/**
 * The virtual device's own items, which no firmware has: the emulated board's chips, and whether a
 * reset powers the C64 on again (RAM in a real board's power-on pattern). The tool configures a
 * virtual device with them for every run; a virtual device in its hardware role has none.
 */
export const VIRTUAL_MACHINE_CATEGORY = 'Virtual C64 (emulation)';

export interface ConfigStoreOptions {
  /** The Ultimate 64's own "U64 Specific Settings" (System Mode); the Ultimate-II+ has none. Default true. */
  u64Settings?: boolean;
  /** The "Virtual C64 (emulation)" category (default true; false: the virtual device plays hardware). */
  virtualMachine?: boolean;
}

export class ConfigStore {
  readonly #cats = new Map<string, Map<string, ConfigItem>>([
    [
      'C64 and Cartridge Settings',
      new Map<string, ConfigItem>([
        // As software/io/c64/c64.cc (3.14/3.15): the preload offset is a choice list, the image name
        // at most 31 characters.
        ['RAM Expansion Unit', en('Disabled', ['Disabled', 'Enabled', 'GeoRAM Mode'])],
        ['REU Size', en('2 MB', ['128 KB', '256 KB', '512 KB', '1 MB', '2 MB', '4 MB', '8 MB', '16 MB'])],
        ['REU Preload', en('Disabled', ['Disabled', 'Enabled'])],
        ['REU Preload Image', str('/Usb0/preload.reu', 31)],
        ['REU Preload Offset', en('0 KB', [...REU_PRELOAD_OFFSETS.keys()])],
      ]),
    ],
    [
      'Data Streams',
      new Map<string, ConfigItem>([
        ['Stream VIC to', str('239.0.1.64:11000')],
        ['Stream Audio to', str('239.0.1.65:11001')],
        ['Stream Debug to', str('239.0.1.66:11002')],
        ['Debug Stream Mode', en('6510 Only', [...DEBUG_STREAM_MODES])],
      ]),
    ],
    ['Network Settings', new Map<string, ConfigItem>([['Host Name', str('virtual-u64')]])],
  ]);

  /** What the flash holds per category (item → value); the defaults until something is saved. */
  readonly #flash = new Map<string, Map<string, string | number>>();

  constructor(opts: ConfigStoreOptions = {}) {
    if (opts.u64Settings !== false)
      this.#cats.set(U64_CATEGORY, new Map<string, ConfigItem>([['System Mode', en('PAL', [...SYSTEM_MODES])]]));
    if (opts.virtualMachine !== false)
      this.#cats.set(
        VIRTUAL_MACHINE_CATEGORY,
        new Map<string, ConfigItem>([
          ['CIA Model', en('6526', ['6526', '6526A', '6526-4485'])],
          ['VIC-II Revision', en('Old', ['Old', 'New'])],
          ['NTSC VIC-II', en('6567R8', ['6567R8', '6567R56A'])],
          ['Reset', en('Keep RAM', ['Keep RAM', 'Power Cycle'])],
        ]),
      );
    this.markAllSaved();
  }

  categories(): string[] {
    return [...this.#cats.keys()];
  }

  #values(items: Map<string, ConfigItem>): Map<string, string | number> {
    return new Map([...items].map(([k, it]) => [k, it.current]));
  }

  /** The current values become the flash contents (the configuration a device boots with). */
  markAllSaved(): void {
    for (const [k, items] of this.#cats) this.#flash.set(k, this.#values(items));
  }

  #selected(pattern: string | undefined): Array<[string, Map<string, ConfigItem>]> {
    return pattern === undefined ? [...this.#cats] : this.matchCategories(pattern);
  }

  /** configs:save_to_flash — writes the categories whose flash copy is stale; returns their names. */
  saveToFlash(pattern?: string): string[] {
    const written: string[] = [];
    for (const [k, items] of this.#selected(pattern)) {
      const flash = this.#flash.get(k);
      if (flash && [...items].every(([name, it]) => flash.get(name) === it.current)) continue;
      this.#flash.set(k, this.#values(items));
      written.push(k);
    }
    return written;
  }

  /** configs:load_from_flash — the matching categories take the flash values again. */
  loadFromFlash(pattern?: string): string[] {
    const loaded: string[] = [];
    for (const [k, items] of this.#selected(pattern)) {
      const flash = this.#flash.get(k);
      for (const [name, it] of items) {
        const v = flash?.get(name);
        if (v !== undefined) it.current = v as never;
      }
      loaded.push(k);
    }
    return loaded;
  }

  /** configs:reset_to_default — the matching categories take their defaults (the flash is kept). */
  resetToDefault(pattern?: string): string[] {
    const reset: string[] = [];
    for (const [k, items] of this.#selected(pattern)) {
      for (const it of items.values()) it.current = it.default as never;
      reset.push(k);
    }
    return reset;
  }

  /** Case-insensitive lookup, as the firmware matches names. */
  category(name: string): [string, Map<string, ConfigItem>] | undefined {
    for (const [k, v] of this.#cats) if (k.toLowerCase() === name.toLowerCase()) return [k, v];
    return undefined;
  }

  /** Categories whose names match the wildcard pattern (`*`, `?`), in order. */
  matchCategories(pattern: string): Array<[string, Map<string, ConfigItem>]> {
    return [...this.#cats].filter(([k]) => wildcardMatch(pattern, k));
  }

  item(cat: string, item: string): [string, ConfigItem] | undefined {
    const c = this.category(cat);
    if (!c) return undefined;
    for (const [k, v] of c[1]) if (k.toLowerCase() === item.toLowerCase()) return [k, v];
    return undefined;
  }

  get(cat: string, item: string): string | number | undefined {
    return this.item(cat, item)?.[1].current;
  }

  /** Sets a value; returns an error message for the device's `errors` array, or undefined. */
  set(cat: string, item: string, raw: string | number): string | undefined {
    const found = this.item(cat, item);
    if (!found) return `Item '${item}' not found in category '${cat}'`;
    const it = found[1];
    const s = String(raw);
    // Texts as the firmware's route_configs.cc.
    if (it.kind === 'enum') {
      const v = it.values.find((x) => x.toLowerCase() === s.toLowerCase());
      if (!v) return `Value '${s}' is not a valid choice for item ${found[0]}`;
      it.current = v;
    } else if (it.kind === 'int') {
      const n = strtol(s, 0);
      if (n < it.min || n > it.max) return `Value '${s}' is out of range for item ${found[0]}`;
      it.current = n;
    } else {
      if (s.length > it.maxLength) return `Value for '${found[0]}' longer than ${it.maxLength} characters`;
      it.current = s;
    }
    return undefined;
  }

  describe(it: ConfigItem): Record<string, unknown> {
    if (it.kind === 'enum') return { current: it.current, values: it.values, default: it.default };
    if (it.kind === 'int') return { current: it.current, min: it.min, max: it.max, default: it.default };
    return { current: it.current, default: it.default };
  }
}
