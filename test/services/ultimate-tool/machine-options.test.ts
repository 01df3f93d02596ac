// tests[].machine on each target: the x64sc flags of the vice target, and the ultimate target's
// configuration of the device — the whole board on a virtual device (which offers its "Virtual C64
// (emulation)" items), only the firmware's items on hardware, where an option the device cannot
// take is refused, naming it, before anything is written (tried on the virtual device in its
// hardware role: virtualMachineSettings false).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { UltimateDevice } from '../../../engines/ultimate/device.js';
import { VirtualUltimate } from '../../../engines/ultimate/virtual/index.js';
import type { C64Machine } from '../../../engines/ultimate/virtual/c64/machine.js';
import { MachineSchema } from '../../../services/ultimate-tool/project/manifest.js';
import { MachineOptionError, viceMachineFlags } from '../../../services/ultimate-tool/targets/machine-options.js';
import { UltimateConnection } from '../../../services/ultimate-tool/targets/ultimate-target.js';

const devices: VirtualUltimate[] = [];
after(async () => {
  for (const d of devices) await d.stop();
});

async function connect(virtualMachineSettings: boolean) {
  const dev = await VirtualUltimate.start({ virtualMachineSettings, speed: 'max' });
  devices.push(dev);
  const device = new UltimateDevice({ baseUrl: `http://127.0.0.1:${dev.ports.http}`, ftpPort: dev.ports.ftp, dmaPort: dev.ports.dma });
  const conn = new UltimateConnection({ device, identity: {}, emulation: virtualMachineSettings, strictGate: false });
  return { dev, conn, machine: dev.machine as unknown as C64Machine };
}

test('vice: the testbench mapping as x64sc flags (-VICIImodel for the revision, the 4485 batch as the old 6526, noted)', () => {
  assert.deepEqual(viceMachineFlags(undefined), { flags: [], notes: [] });
  assert.deepEqual(viceMachineFlags({ cia_model: '6526A', video: 'ntsc', reu_kb: 512 }).flags, [
    '-ciamodel',
    '1',
    '-ntsc',
    '-reu',
    '-reusize',
    '512',
  ]);
  assert.deepEqual(viceMachineFlags({ video: 'ntsc-old' }).flags, ['-ntscold']);
  assert.deepEqual(viceMachineFlags({ vic_revision: 'new' }).flags, ['-VICIImodel', '8565']);
  assert.deepEqual(viceMachineFlags({ video: 'ntsc', vic_revision: 'old' }).flags, ['-VICIImodel', '6567']);
  const batch = viceMachineFlags({ cia_model: '6526-4485' });
  assert.deepEqual(batch.flags, ['-ciamodel', '0']);
  assert.match(batch.notes.join(), /no model of the 6526 batch dated 4485/);
  assert.throws(() => viceMachineFlags({ video: 'ntsc-old', vic_revision: 'new' }), MachineOptionError);
});

test('the manifest refuses a machine no chip makes, naming the field', () => {
  const r = MachineSchema.safeParse({ video: 'ntsc-old', vic_revision: 'new' });
  assert.equal(r.success, false);
  assert.deepEqual(r.error?.issues[0]?.path, ['vic_revision']);
  assert.equal(MachineSchema.safeParse({ reu_kb: 300 }).success, false);
  assert.equal(MachineSchema.safeParse({ cia_model: '6526-4485', video: 'ntsc', vic_revision: 'new', reu_kb: 16384 }).success, true);
});

test('virtual device: the whole board per run, at the next reset, and a reset that powers the C64 on again', async () => {
  const { conn, machine } = await connect(true);
  const m1 = await conn.configureMachine({ cia_model: '6526A', video: 'ntsc', vic_revision: 'new', reu_kb: 512 });
  assert.equal(m1.speed, 'real-time');
  assert.deepEqual([m1.cia_model, m1.video, m1.vic_revision, m1.reu_kb], ['6526A', 'ntsc', 'new', 512]);
  machine.writeMem(0xc000, Uint8Array.of(0x5a));
  machine.reset();
  assert.deepEqual([machine.ciaModel, machine.video, machine.vicRevision, machine.reuKb], ['6526A', 'ntsc', 'new', 512]);
  assert.equal(machine.cyclesPerLine, 65);
  assert.notEqual(machine.ram[0xc000], 0x5a, 'the power-cycling reset left no RAM of the run before');
  // The next run without a machine gets the default C64 back: nothing of the last one stays.
  const m2 = await conn.configureMachine(undefined);
  assert.deepEqual([m2.cia_model, m2.video, m2.vic_revision, m2.reu_kb], ['6526', 'pal', 'old', 0]);
  machine.reset();
  assert.deepEqual([machine.ciaModel, machine.video, machine.vicRevision, machine.reuKb], ['6526', 'pal', 'old', 0]);
  assert.equal(machine.cyclesPerLine, 63);
  const m3 = await conn.configureMachine({ video: 'ntsc-old' });
  machine.reset();
  assert.equal(m3.video, 'ntsc-old');
  assert.equal(machine.video, 'ntsc-old');
  await conn.close();
});

test('hardware role: what the firmware offers is set, an option it lacks is refused by name before any effect', async () => {
  const { dev, conn, machine } = await connect(false);
  let resets = 0;
  const reset = machine.reset.bind(machine);
  machine.reset = () => {
    resets++;
    reset();
  };
  const before = JSON.stringify(
    dev.config.categories().map((c) => [c, dev.config.category(c)?.[1] && [...dev.config.category(c)![1]].map(([k, v]) => [k, v.current])]),
  );
  for (const [option, spec] of [
    ['cia_model', { video: 'ntsc', cia_model: '6526A' }],
    ['vic_revision', { reu_kb: 256, vic_revision: 'new' }],
    ['video', { video: 'ntsc-old' }],
  ] as const) {
    await assert.rejects(
      conn.configureMachine(spec),
      (e: unknown) => e instanceof MachineOptionError && e.option === option && /nothing was changed on the device/.test(e.message),
      option,
    );
  }
  const after = JSON.stringify(
    dev.config.categories().map((c) => [c, dev.config.category(c)?.[1] && [...dev.config.category(c)![1]].map(([k, v]) => [k, v.current])]),
  );
  assert.equal(after, before, 'a refused machine changed no configuration item');
  assert.equal(resets, 0, 'nor reset the machine');
  // The firmware's own items: System Mode and the REU.
  const ok = await conn.configureMachine({ video: 'ntsc', reu_kb: 1024 });
  assert.equal(dev.config.get('U64 Specific Settings', 'System Mode'), 'NTSC');
  assert.equal(dev.config.get('C64 and Cartridge Settings', 'REU Size'), '1 MB');
  assert.equal(ok.cia_model, undefined, "an option not asked for is the device's own");
  assert.equal(resets, 0);
  await conn.close();
});
