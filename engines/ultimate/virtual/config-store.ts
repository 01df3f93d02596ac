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
function int(def: number, min: number, max: number): ConfigItem {
  return { kind: 'int', current: def, default: def, min, max };
}
function str(def: string, maxLength = 64): ConfigItem {
  return { kind: 'string', current: def, default: def, maxLength };
}

export class ConfigStore {
  readonly #cats = new Map<string, Map<string, ConfigItem>>([
    [
      'C64 and Cartridge Settings',
      new Map<string, ConfigItem>([
        ['RAM Expansion Unit', en('Disabled', ['Disabled', 'Enabled'])],
        ['REU Size', en('512 KB', ['128 KB', '256 KB', '512 KB', '1 MB', '2 MB', '4 MB', '8 MB', '16 MB'])],
        ['REU Preload', en('Disabled', ['Disabled', 'Enabled'])],
        ['REU Preload Image', str('', 128)],
        ['REU Preload Offset', int(0, 0, 0xffffff)],
      ]),
    ],
    [
      'Data Streams',
      new Map<string, ConfigItem>([
        ['Stream VIC to', str('239.0.1.64:11000')],
        ['Stream Audio to', str('239.0.1.65:11001')],
        ['Stream Debug to', str('239.0.1.66:11002')],
        ['Debug Stream Mode', en('6510 Only', ['6510 Only'])],
      ]),
    ],
    ['Network Settings', new Map<string, ConfigItem>([['Host Name', str('virtual-u64')]])],
  ]);

  categories(): string[] {
    return [...this.#cats.keys()];
  }

  /** Case-insensitive lookup, as the firmware matches names. */
  category(name: string): [string, Map<string, ConfigItem>] | undefined {
    for (const [k, v] of this.#cats) if (k.toLowerCase() === name.toLowerCase()) return [k, v];
    return undefined;
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
    if (it.kind === 'enum') {
      const v = it.values.find((x) => x.toLowerCase() === s.toLowerCase());
      if (!v) return `Invalid value '${s}' for '${found[0]}'; expected one of: ${it.values.join(', ')}`;
      it.current = v;
    } else if (it.kind === 'int') {
      const n = Number(s);
      if (!Number.isInteger(n) || n < it.min || n > it.max)
        return `Invalid value '${s}' for '${found[0]}'; expected an integer ${it.min}..${it.max}`;
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
