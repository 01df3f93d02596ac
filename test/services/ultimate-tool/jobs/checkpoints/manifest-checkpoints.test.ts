// The bounded supported shapes of memory checkpoints are enforced when the manifest is loaded,
// before any run: each rule of docs/ultimate/CHECKPOINT_COMPARISON.md is refused with its path.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CHECKPOINT_LIMITS, ManifestError, loadManifest } from '../../../../../services/ultimate-tool/project/manifest.js';
import { exampleProject } from '../../harness.js';

const dir = mkdtempSync(join(tmpdir(), 'ultimate-checkpoint-manifest-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const example = JSON.parse(readFileSync(join(exampleProject, 'ultimate-tool.json'), 'utf8'));

type Point = { name: string; marker: number; ranges: Array<{ name: string; address: number | string; length: number }> };

async function load(points: Point[], change: Record<string, unknown> = {}): Promise<unknown> {
  const m = structuredClone(example);
  const t = m.tests.find((x: { name: string }) => x.name === 'checkpoint-probe');
  Object.assign(t, { checkpoints: points }, change);
  delete m.$schema;
  writeFileSync(join(dir, 'ultimate-tool.json'), JSON.stringify(m));
  return loadManifest(dir);
}

const range = (name: string, address: number | string = '$C000', length = 1) => ({ name, address, length });
const point = (name: string, marker: number, ranges = [range('r')]) => ({ name, marker, ranges });

test('the example project: checkpoint-probe and checkpoint-skew load with their plans, addresses normalized', async () => {
  const m = await loadManifest(exampleProject);
  const skew = m.tests.find((t) => t.name === 'checkpoint-skew');
  assert.ok(skew?.memory_checkpoint_capture);
  assert.deepEqual(
    skew.checkpoints.map((p) => [p.name, p.marker, p.ranges.map((r) => [r.name, r.address, r.length])]),
    [
      ['squares', 1, [['table', 0xc100, 16]]],
      [
        'summed',
        2,
        [
          ['table', 0xc100, 16],
          ['sum', 0xc110, 1],
          ['after-marker', 0xc120, 1],
        ],
      ],
    ],
  );
  assert.deepEqual(m.tests.find((t) => t.name === 'sum-passes')?.checkpoints, []);
});

test('the limits are accepted at their edges', async () => {
  const many = Array.from({ length: CHECKPOINT_LIMITS.points }, (_, i) => point(`p${i}`, i + 1));
  await load(many);
  const full = Array.from({ length: 4 }, (_, i) => range(`r${i}`, 0xc000 - i * 0x1000, CHECKPOINT_LIMITS.rangeBytes));
  await load([point('big', 1, full)]);
  await load([point('top', 1, [range('last', '$FFFF', 1)])]);
});

test('shapes outside the rules are refused at load, with the path and what was expected', async () => {
  const cases: Array<[Point[], Record<string, unknown>, RegExp]> = [
    [Array.from({ length: 17 }, (_, i) => point(`p${i}`, i + 1)), {}, /checkpoints: Too big: expected array to have <=16/],
    [
      [
        point(
          'p',
          1,
          Array.from({ length: 9 }, (_, i) => range(`r${i}`)),
        ),
      ],
      {},
      /checkpoints\.0\.ranges: Too big/,
    ],
    [[point('p', 1, [range('r', '$C000', 4097)])], {}, /checkpoints\.0\.ranges\.0\.length/],
    [[point('p', 1, [range('r', '$C000', 0)])], {}, /checkpoints\.0\.ranges\.0\.length/],
    [[point('p', 1, [range('r', '$FFFF', 2)])], {}, /runs past \$FFFF/],
    [
      [
        point(
          'p',
          1,
          Array.from({ length: 5 }, (_, i) => range(`r${i}`, 0x1000 * i, 4096)),
        ),
      ],
      {},
      /reads 20480 bytes; at most 16384 per point/,
    ],
    [[point('p', 0)], {}, /checkpoints\.0\.marker/],
    [[point('p', 0x80)], {}, /checkpoints\.0\.marker/],
    [[point('p', 1), point('q', 1)], {}, /marker 1 is used by another checkpoint/],
    [[point('p', 1), point('p', 2)], {}, /duplicate checkpoint p/],
    [[point('p', 1, [range('r'), range('r')])], {}, /duplicate range r/],
    [[point('p', 1, [range('r', 'nowhere')])], {}, /expected an address/],
    [[point('p', 1)], { memory_checkpoint_capture: false }, /checkpoints need memory_checkpoint_capture: true/],
    [[point('p', 1)], { observe: 'screen', expect: { screen_match: { text: 'X' } } }, /checkpoints need observe "debug_register"/],
  ];
  for (const [points, change, message] of cases) {
    await assert.rejects(load(points, change), (e: unknown) => {
      assert.ok(e instanceof ManifestError, String(e));
      assert.match(e.message, message);
      assert.match(e.message, /tests\.\d+\.checkpoints/);
      return true;
    });
  }
});
