// The U64 input API of firmware 3.15 (GET/POST machine:input) on the virtual device, over real
// HTTP: the batch validation with the firmware's messages (nothing applied when any event is bad),
// the state snapshot, and the effect on the C64 — keys and joysticks read through CIA 1's ports.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startRig, waitFor, type Rig } from '../../helpers.js';

interface Reply {
  status: number;
  json: Record<string, unknown> | null;
}

async function req(rig: Rig, method: string, path: string, body?: string, type = 'application/json'): Promise<Reply> {
  const headers: Record<string, string> = body !== undefined ? { 'Content-Type': type } : {};
  const res = await fetch(`http://127.0.0.1:${rig.virtual.ports.http}${path}`, { method, body, headers });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

const input = (rig: Rig, events: unknown) => req(rig, 'POST', '/v1/machine:input', JSON.stringify({ events }));

const idle = {
  keyboard: { inputs: [] },
  joysticks: [
    { port: 1, inputs: [] },
    { port: 2, inputs: [] },
  ],
  errors: [],
};

async function cia1(rig: Rig): Promise<[number, number]> {
  const r = await fetch(`http://127.0.0.1:${rig.virtual.ports.http}/v1/machine:readmem?address=DC00&length=2`);
  const b = new Uint8Array(await r.arrayBuffer());
  return [b[0]!, b[1]!];
}

describe('U64 machine:input (firmware 3.15)', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig();
    // Hold the C64 (its KERNAL scans the keyboard through $DC00) and set CIA 1 up as the KERNAL
    // does: port A all outputs (rows), port B all inputs (columns).
    assert.equal((await req(rig, 'PUT', '/v1/machine:pause')).status, 200);
    assert.equal((await req(rig, 'PUT', '/v1/machine:writemem?address=DC02&data=FF00')).status, 200);
  });
  after(async () => {
    await rig.close();
  });

  test('bad requests get the firmware answers and change nothing', async () => {
    const cases: Array<[string | undefined, string, string]> = [
      ['{"events":[{"kind":"release_all"}]}', 'text/plain', "Content type should be 'application/json'."],
      ['', 'application/json', 'Request body is required.'],
      ['{"events":[', 'application/json', 'JSON could not be parsed. Error: -3'],
      ['[]', 'application/json', 'Root must be an object.'],
      ['{"event":[]}', 'application/json', 'Unknown field `event`.'],
      ['{}', 'application/json', '`events` is required.'],
      ['{"events":{}}', 'application/json', '`events` must be an array.'],
      ['{"events":[]}', 'application/json', '`events` must contain 1..64 entries.'],
    ];
    for (const [body, type, error] of cases) {
      const r = await req(rig, 'POST', '/v1/machine:input', body, type);
      assert.deepEqual([r.status, r.json], [400, { errors: [error] }], `${body} as ${type}`);
    }
    const events: Array<[unknown, string]> = [
      [1, 'Each event must be an object.'],
      [{ transition: 'tap' }, '`kind` is required.'],
      [{ kind: 'mouse' }, '`kind` must be one of `keyboard`, `joystick`, or `release_all`.'],
      [{ kind: 'keyboard', port: 1, inputs: ['a'], transition: 'tap' }, 'Unknown field `port`.'],
      [{ kind: 'keyboard', inputs: ['a'] }, '`transition` is required.'],
      [{ kind: 'keyboard', inputs: ['a'], transition: 'hold' }, '`transition` must be one of `press`, `release`, or `tap`.'],
      [{ kind: 'keyboard', inputs: [], transition: 'tap' }, '`inputs` must contain 1..8 entries.'],
      [{ kind: 'keyboard', inputs: ['hyper'], transition: 'tap' }, '`hyper` is not a valid keyboard input.'],
      [{ kind: 'keyboard', inputs: ['a', 'a'], transition: 'tap' }, '`a` appears more than once in `inputs`.'],
      [
        { kind: 'keyboard', inputs: ['restore'], transition: 'press' },
        '`restore` must appear alone in `inputs` and only with transition `tap`.',
      ],
      [{ kind: 'keyboard', inputs: ['x'.repeat(40)], transition: 'tap' }, `\`${'x'.repeat(28)}...\` is not a valid keyboard input.`],
      [{ kind: 'joystick', inputs: ['up'], transition: 'press' }, '`port` is required.'],
      [{ kind: 'joystick', port: '1', inputs: ['up'], transition: 'press' }, '`port` must be an integer.'],
      [{ kind: 'joystick', port: 3, inputs: ['up'], transition: 'press' }, '`port` must be 1 or 2.'],
      [{ kind: 'joystick', port: 1, inputs: ['jump'], transition: 'press' }, '`jump` is not a valid joystick input.'],
      [{ kind: 'joystick', port: 1, inputs: 'up', transition: 'press' }, '`inputs` must be an array.'],
      [{ kind: 'release_all', transition: 'tap' }, 'Unknown field `transition`.'],
    ];
    for (const [ev, error] of events) {
      // A valid press first: the batch is validated as a whole, so it must not be applied.
      const r = await input(rig, [{ kind: 'keyboard', inputs: ['q'], transition: 'press' }, ev]);
      assert.deepEqual([r.status, r.json], [400, { errors: [`events[1]: ${error}`] }], JSON.stringify(ev));
    }
    assert.deepEqual((await req(rig, 'GET', '/v1/machine:input')).json, idle);
  });

  test('pressed keys and joystick lines are read through CIA 1; release_all lets go of everything', async () => {
    assert.equal((await req(rig, 'PUT', '/v1/machine:writemem?address=DC00&data=FE')).status, 200); // select row 0
    assert.deepEqual(await cia1(rig), [0xfe, 0xff]);
    const pressed = await input(rig, [
      { kind: 'keyboard', inputs: ['return', 'left_shift'], transition: 'press' },
      { kind: 'joystick', port: 1, inputs: ['fire'], transition: 'press' },
      { kind: 'joystick', port: 2, inputs: ['right', 'up'], transition: 'press' },
    ]);
    const held = {
      keyboard: { inputs: ['return', 'left_shift'] },
      joysticks: [
        { port: 1, inputs: ['fire'] },
        { port: 2, inputs: ['up', 'right'] },
      ],
      errors: [],
    };
    assert.deepEqual([pressed.status, pressed.json], [200, held]);
    assert.deepEqual((await req(rig, 'GET', '/v1/machine:input')).json, held);
    // Row 0 selected: RETURN pulls PB1 low, fire on port 1 PB4; port 2 pulls PA0 (up), PA3 (right).
    assert.deepEqual(await cia1(rig), [0xf6, 0xfd & 0xef]);
    // Row 1 selected (PA0 high but pulled low by joystick 2 up, which also reads row 0): shift is PB7.
    await req(rig, 'PUT', '/v1/machine:writemem?address=DC00&data=FD');
    assert.deepEqual(await cia1(rig), [0xf4, 0x7f & 0xfd & 0xef]);

    const released = await input(rig, [
      { kind: 'keyboard', inputs: ['return'], transition: 'release' },
      { kind: 'joystick', port: 2, inputs: ['up', 'right'], transition: 'release' },
    ]);
    assert.deepEqual(released.json, {
      ...held,
      keyboard: { inputs: ['left_shift'] },
      joysticks: [
        { port: 1, inputs: ['fire'] },
        { port: 2, inputs: [] },
      ],
    });
    assert.deepEqual(await cia1(rig), [0xfd, 0x7f & 0xef]);

    assert.deepEqual((await input(rig, [{ kind: 'release_all' }])).json, idle);
    assert.deepEqual(await cia1(rig), [0xfd, 0xff]);
  });

  test('a tap holds its inputs briefly and then releases them by itself', async () => {
    await req(rig, 'PUT', '/v1/machine:writemem?address=DC00&data=FB'); // row 2: D is PB2
    const tapped = await input(rig, [
      { kind: 'keyboard', inputs: ['d'], transition: 'tap' },
      { kind: 'joystick', port: 1, inputs: ['left'], transition: 'tap' },
    ]);
    assert.deepEqual(tapped.json, {
      keyboard: { inputs: ['d'] },
      joysticks: [
        { port: 1, inputs: ['left'] },
        { port: 2, inputs: [] },
      ],
      errors: [],
    });
    await waitFor(
      'the tap to end',
      async () => (await req(rig, 'GET', '/v1/machine:input')).json,
      (j) => JSON.stringify(j) === JSON.stringify(idle),
    );
    assert.deepEqual(await cia1(rig), [0xfb, 0xff]);
  });
});

describe('RESTORE', () => {
  test('a RESTORE tap makes one NMI on the running C64 (through the NMI vector at $0318)', async () => {
    const rig = await startRig();
    try {
      // $C000: INC $C100 / JMP $FEBC (the KERNAL's register restore and RTI); vector it at $0318.
      const code = 'EE00C14CBCFE';
      assert.equal((await req(rig, 'PUT', `/v1/machine:writemem?address=C000&data=${code}`)).status, 200);
      assert.equal((await req(rig, 'PUT', '/v1/machine:writemem?address=C100&data=00')).status, 200);
      assert.equal((await req(rig, 'PUT', '/v1/machine:writemem?address=0318&data=00C0')).status, 200);
      const r = await input(rig, [{ kind: 'keyboard', inputs: ['restore'], transition: 'tap' }]);
      assert.deepEqual((r.json as { keyboard: unknown }).keyboard, { inputs: ['restore'] });
      const mem = async () =>
        new Uint8Array(
          await (await fetch(`http://127.0.0.1:${rig.virtual.ports.http}/v1/machine:readmem?address=C100&length=1`)).arrayBuffer(),
        )[0];
      await waitFor('the NMI handler to run', mem, (v) => v === 1);
      await waitFor(
        'the tap to end',
        async () => (await req(rig, 'GET', '/v1/machine:input')).json,
        (j) => JSON.stringify(j) === JSON.stringify(idle),
      );
      assert.equal(await mem(), 1, 'one press, one NMI edge');
    } finally {
      await rig.close();
    }
  });
});

describe('machine:input on a 3.14 U64', () => {
  test('is a bare 404 (the API is new in 3.15)', async () => {
    const rig = await startRig({ firmware: '3.14' });
    try {
      assert.deepEqual(await req(rig, 'GET', '/v1/machine:input'), { status: 404, json: null });
    } finally {
      await rig.close();
    }
  });
});
