// The capture judge (timeline/capture-judge.ts): the judge's BusTraceObserver fed a stored capture.
// In "6510 & VIC" its $D7FF write cycles are φ2 clocks from the program's first instruction, the
// clocks the VIC took included — the very cycles of the timeline's write rows. In "6510 Only" (no
// VIC halves) it has no exact clocks; a datagram lost after the start makes nothing exact.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DEBUG_ENTRIES_PER_DATAGRAM } from '../../../../engines/ultimate/debug-stream/datagram.js';
import type { RunProtocol } from '../../../../services/ultimate-tool/targets/connection.js';
import { prgLoadRange } from '../../../../services/ultimate-tool/targets/program-start.js';
import { buildCaptureIndex } from '../../../../services/ultimate-tool/timeline/capture-index.js';
import { judgeCapture } from '../../../../services/ultimate-tool/timeline/capture-judge.js';
import { findProgramStart } from '../../../../services/ultimate-tool/timeline/program-start-scan.js';
import { type BusRow, readTimelinePage } from '../../../../services/ultimate-tool/timeline/timeline-page.js';
import { datagram, entry, writeCapture } from './capture-fixture.js';

const dir = mkdtempSync(join(tmpdir(), 'capture-judge-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const N = DEBUG_ENTRIES_PER_DATAGRAM;
// $C000: LDA #$80; STA $D7FF — a PRG in the load range $C000-$C005.
const PRG = Uint8Array.from([0x00, 0xc0, 0xa9, 0x80, 0x8d, 0xff, 0xd7, 0x60]);
const PROTOCOL: RunProtocol = {
  classify: (v) => (v === 0x80 ? 'pass' : null),
  crash: { jam: true, brk: 'unhandled', outsideCode: [] },
};

/** CPU accesses, each as one clock: a VIC half first when `vic`; `stolen` clocks (BA low) after the start. */
function trace(vic: boolean, stolen: number): number[] {
  const cpu: Array<[number, number, 'read' | 'write', boolean]> = [];
  for (let i = 0; i < 200; i++) cpu.push([0xe000 + i, 0xea, 'read', true]); // the boot
  cpu.push([0xfffc, 0x00, 'read', true], [0xfffd, 0xc0, 'read', true]); // the reset's vector fetch
  cpu.push([0xc000, 0xa9, 'read', true], [0xc001, 0x80, 'read', true]); // LDA #$80: cycle 0, 1
  // A bad line: the VIC takes `stolen` clocks (the CPU's half shows BA low, no access).
  for (let i = 0; i < stolen; i++) cpu.push([0xc002, 0x8d, 'read', false]);
  cpu.push([0xc002, 0x8d, 'read', true], [0xc003, 0xff, 'read', true], [0xc004, 0xd7, 'read', true]);
  cpu.push([0xd7ff, 0x80, 'write', true]);
  for (let i = 0; i < 400; i++) cpu.push([0xc005, 0x60, 'read', true]);
  const out: number[] = [];
  for (const [a, d, k, ba] of cpu) {
    if (vic) out.push(entry(0x0400, 0x20, 'vic'));
    // "6510 Only" leaves out the clocks the VIC took (the FPGA sends no CPU half then).
    if (!vic && !ba) continue;
    out.push(entry(a, d, k, ba));
  }
  return out;
}

async function stored(name: string, entries: number[], drop?: number) {
  const grams: Buffer[] = [];
  for (let d = 0; d * N < entries.length; d++) {
    const chunk = entries.slice(d * N, (d + 1) * N);
    while (chunk.length < N) chunk.push(entry(0xc005, 0x60, 'read'));
    if (d !== drop) grams.push(datagram(d, chunk));
  }
  const capturePath = join(dir, `${name}.u64cap`);
  writeCapture(capturePath, grams);
  const { index } = await buildCaptureIndex(capturePath);
  const indexPath = join(dir, `${name}.tlix`);
  writeFileSync(indexPath, index);
  return { capturePath, indexPath, indexSha256: createHash('sha256').update(index).digest('hex') };
}

test('"6510 & VIC": the judged write cycle is the timeline row\'s, in clocks counting the stolen ones', async () => {
  const files = await stored('vic', trace(true, 40));
  const judged = await judgeCapture(files.capturePath, files.indexPath, PRG, PROTOCOL, 'u64', true);
  assert.equal(judged.cycleSource, 'debug-stream');
  assert.equal(judged.writesExact, true);
  // LDA # (2 clocks), 40 stolen, STA abs: opcode, two operands, then the write at clock 2 + 40 + 3.
  assert.deepEqual(judged.writes, [{ value: 0x80, cycle: 45 }]);
  const programStart = await findProgramStart(files.capturePath, files.indexPath, prgLoadRange(PRG)!, 'u64');
  const page = await readTimelinePage(
    { ...files, product: 'u64', streamMode: '6510 & VIC', programStart },
    { addressFrom: 0xd7ff, addressTo: 0xd7ff, access: 'write' },
  );
  assert.equal(page.cycle_unit, 'clock');
  assert.equal(page.cycle_origin, 'program_start');
  assert.deepEqual(
    page.rows.filter((r): r is BusRow => r.kind === 'bus').map((r) => [r.data, r.cycle]),
    judged.writes.map((w) => [w.value, w.cycle]),
  );
});

test('"6510 Only": the same write, no exact clocks (the stolen ones are not in the stream)', async () => {
  const files = await stored('cpu-only', trace(false, 40));
  const judged = await judgeCapture(files.capturePath, files.indexPath, PRG, PROTOCOL, 'u64', true);
  assert.equal(judged.sawVicHalves, false);
  assert.equal(judged.cycleSource, null);
  assert.deepEqual(
    judged.writes.map((w) => w.value),
    [0x80],
  );
});

test('a datagram lost after the program started: neither writes nor cycles are exact', async () => {
  // 40 stolen clocks is 80 entries; a longer bad stretch puts the write two datagrams after the start.
  const entries = trace(true, 400);
  const files = await stored('lost', entries, 2);
  const judged = await judgeCapture(files.capturePath, files.indexPath, PRG, PROTOCOL, 'u64', true);
  assert.equal(judged.writesExact, false);
  assert.equal(judged.cycleSource, null);
});

test('a trace that stops before the run ended (the end was expected): writes not exact, their cycles still are', async () => {
  const entries = trace(true, 40).slice(0, 2 * (200 + 2 + 2 + 10)); // stops inside the bad line
  const files = await stored('cut', entries);
  const judged = await judgeCapture(files.capturePath, files.indexPath, PRG, PROTOCOL, 'u64', true);
  assert.equal(judged.cutBeforeEnd, true);
  assert.equal(judged.writesExact, false);
  assert.equal(judged.cycleSource, 'debug-stream');
});
