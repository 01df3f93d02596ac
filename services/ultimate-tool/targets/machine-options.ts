// A test's `machine` (CIA model, video, VIC-II revision, REU) as each target takes it:
// - vice: x64sc flags, as VICE's own testbench script passes them (the testbench README's mapping;
//   -VICIImodel for the revision). x64sc has no model of the 6526 batch dated 4485: it runs that
//   test on the old 6526 (`-ciamodel 0`), as VICE's list does, and the run record says so.
// - ultimate: configuration items. The firmware's own ("U64 Specific Settings"/"System Mode",
//   "C64 and Cartridge Settings"/"RAM Expansion Unit", "REU Size"), and, on the virtual device
//   only, its "Virtual C64 (emulation)" items (CIA model, VIC-II revision and NTSC chip, and the
//   reset that powers the C64 on again). Each item is looked up on the device before anything is
//   written: an option the device does not offer is refused, naming it, before any effect.
import type { MachineSpec } from '../project/manifest.js';

/** The machine a run ran on, as its record states it (`machine`). */
export interface MachineRecord {
  /** Absent on hardware when the test did not ask: the device's own configuration decided. */
  cia_model?: '6526' | '6526A' | '6526-4485';
  video?: 'pal' | 'ntsc' | 'ntsc-old';
  vic_revision?: 'old' | 'new';
  reu_kb?: number;
  /** What the target was told: x64sc flags, or the device's configuration items. */
  applied_as: string[] | Record<string, Record<string, string>>;
  /** How fast the emulation ran: 'max' (as fast as it can), 'real-time' (a C64's pace), 'warp' (x64sc -warp), or 'hardware'. */
  speed: 'max' | 'real-time' | 'warp' | 'hardware';
  notes?: string[];
}

/** The default C64 (x64sc -default and the virtual device alike): old 6526s, PAL, the old VIC-II, no REU. */
export function fullMachine(m: MachineSpec | undefined): Required<Pick<MachineRecord, 'cia_model' | 'video' | 'vic_revision' | 'reu_kb'>> {
  return { cia_model: m?.cia_model ?? '6526', video: m?.video ?? 'pal', vic_revision: m?.vic_revision ?? 'old', reu_kb: m?.reu_kb ?? 0 };
}

/** The -VICIImodel name of a video standard and revision (x64sc 3.10: 6569/8565/6567/8562/6567r56a). */
function viciiModel(video: MachineRecord['video'], revision: MachineRecord['vic_revision']): string | null {
  if (video === 'pal') return revision === 'new' ? '8565' : '6569';
  if (video === 'ntsc') return revision === 'new' ? '8562' : '6567';
  return revision === 'new' ? null : '6567r56a';
}

/** The x64sc flags of a test's machine (empty for the default C64) and what the record should note. */
export function viceMachineFlags(m: MachineSpec | undefined): { flags: string[]; notes: string[] } {
  const flags: string[] = [];
  const notes: string[] = [];
  if (!m) return { flags, notes };
  if (m.cia_model === '6526') flags.push('-ciamodel', '0');
  else if (m.cia_model === '6526A') flags.push('-ciamodel', '1');
  else if (m.cia_model === '6526-4485') {
    flags.push('-ciamodel', '0');
    notes.push('x64sc has no model of the 6526 batch dated 4485: it ran the old 6526 (-ciamodel 0)');
  }
  if (m.vic_revision !== undefined) {
    // -VICIImodel sets the video standard too; the chip of the standard asked for.
    const model = viciiModel(m.video ?? 'pal', m.vic_revision);
    if (model === null) throw new MachineOptionError('vic_revision', 'there is no new revision of the 6567R56A (video "ntsc-old")');
    flags.push('-VICIImodel', model);
  } else if (m.video === 'pal') flags.push('-pal');
  else if (m.video === 'ntsc') flags.push('-ntsc');
  else if (m.video === 'ntsc-old') flags.push('-ntscold');
  if (m.reu_kb !== undefined && m.reu_kb > 0) flags.push('-reu', '-reusize', String(m.reu_kb));
  return { flags, notes };
}

/** An option the target cannot take: refused before any effect, naming the option. */
export class MachineOptionError extends Error {
  override readonly name = 'MachineOptionError';
  constructor(
    readonly option: keyof MachineSpec,
    reason: string,
  ) {
    super(`machine.${option}: ${reason}`);
  }
}

/** The virtual device's own category (engines/ultimate/virtual/device/config-store.ts). */
export const VIRTUAL_MACHINE_CATEGORY = 'Virtual C64 (emulation)';
export const U64_CATEGORY = 'U64 Specific Settings';
export const CARTRIDGE_CATEGORY = 'C64 and Cartridge Settings';

const REU_LABELS: Record<number, string> = {
  128: '128 KB',
  256: '256 KB',
  512: '512 KB',
  1024: '1 MB',
  2048: '2 MB',
  4096: '4 MB',
  8192: '8 MB',
  16384: '16 MB',
};

/** One configuration item a machine option needs, with the option it comes from. */
export interface MachineItem {
  option: keyof MachineSpec | 'reset';
  category: string;
  item: string;
  value: string;
}

/**
 * The configuration items of a machine. `complete` (a virtual device, which the tool configures
 * whole for every run): every option, the defaults included, and the power-on reset, so nothing
 * of an earlier run's machine or RAM stays. Otherwise (hardware): only the options the test asks
 * for — the device's own configuration is the user's.
 */
export function ultimateMachineItems(m: MachineSpec | undefined, complete: boolean): MachineItem[] {
  const want = complete ? fullMachine(m) : (m ?? {});
  const items: MachineItem[] = [];
  if (want.video !== undefined) {
    // The firmware's System Mode names the 50 Hz (PAL) and 60 Hz (NTSC) timing; the 6567R56A has no item there.
    items.push({ option: 'video', category: U64_CATEGORY, item: 'System Mode', value: want.video === 'pal' ? 'PAL' : 'NTSC' });
    if (complete || want.video === 'ntsc-old')
      items.push({
        option: 'video',
        category: VIRTUAL_MACHINE_CATEGORY,
        item: 'NTSC VIC-II',
        value: want.video === 'ntsc-old' ? '6567R56A' : '6567R8',
      });
  }
  if (want.cia_model !== undefined)
    items.push({ option: 'cia_model', category: VIRTUAL_MACHINE_CATEGORY, item: 'CIA Model', value: want.cia_model });
  if (want.vic_revision !== undefined)
    items.push({
      option: 'vic_revision',
      category: VIRTUAL_MACHINE_CATEGORY,
      item: 'VIC-II Revision',
      value: want.vic_revision === 'new' ? 'New' : 'Old',
    });
  if (want.reu_kb !== undefined) {
    items.push({
      option: 'reu_kb',
      category: CARTRIDGE_CATEGORY,
      item: 'RAM Expansion Unit',
      value: want.reu_kb === 0 ? 'Disabled' : 'Enabled',
    });
    const label = REU_LABELS[want.reu_kb];
    if (label) items.push({ option: 'reu_kb', category: CARTRIDGE_CATEGORY, item: 'REU Size', value: label });
  }
  if (complete) items.push({ option: 'reset', category: VIRTUAL_MACHINE_CATEGORY, item: 'Reset', value: 'Power Cycle' });
  return items;
}

/** Items grouped as the firmware's POST /v1/configs body takes them. */
export function itemsBody(items: readonly MachineItem[]): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const i of items) out[i.category] = { ...out[i.category], [i.item]: i.value };
  return out;
}
