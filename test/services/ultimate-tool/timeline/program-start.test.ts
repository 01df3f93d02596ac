// The timeline's cycle column and its program-start boundary, from real capture files in
// "6510 & VIC" layout (two entries per clock: the VIC's half, then the CPU's): cycles count from the
// program's first opcode fetch (negative before it, across lost datagrams by sequence, absent for
// an out-of-order datagram); rows before the start are marked and never resolved to the program's
// source; a row filter (`keep`, the service's context filter) scans as far as the address filter.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DEBUG_ENTRIES_PER_DATAGRAM } from '../../../../engines/ultimate/debug-stream/datagram.js';
import { prgLoadRange } from '../../../../services/ultimate-tool/targets/program-start.js';
import type { Ca65DebugInfo } from '../../../../services/ultimate-tool/timeline/ca65-debug-info.js';
import { buildCaptureIndex } from '../../../../services/ultimate-tool/timeline/capture-index.js';
import { findProgramStart } from '../../../../services/ultimate-tool/timeline/program-start-scan.js';
import { type BusRow, type TimelineEvidence, readTimelinePage } from '../../../../services/ultimate-tool/timeline/timeline-page.js';
import { datagram, entry, writeCapture } from './capture-fixture.js';

const dir = mkdtempSync(join(tmpdir(), 'timeline-start-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const N = DEBUG_ENTRIES_PER_DATAGRAM; // 360 entries = 180 clocks a datagram
const CLOCKS = N / 2;
// The program: loaded at $C000 without a BASIC stub, first opcode LDA # ($A9).
const PRG = Uint8Array.from([0x00, 0xc0, 0xa9, 0x01, 0x8d, 0xff, 0xd7, 0x60]);

/** One clock: the VIC's half (PHI2 low), then the CPU's access. */
const clock = (address: number, data: number, kind: 'read' | 'write') => [entry(0x3fff, 0, 'vic'), entry(address, data, kind)];

// Datagrams 0-3: the previous program loops at $C000 with a NOP ($EA) there — the same addresses as
// the new program. Datagram 4: a reset (the vector fetch $FFFC/$FFFD at clocks 50/51) and, at its
// clock 100, the new program's first fetch at $C000 ($A9, then $C001: an opcode fetch); from then on it keeps reading $C000-$C001 and writing $D7FF. Datagram 6 is
// followed by 2 lost datagrams (sequence jumps); datagram 9 arrives out of order.
function datagrams(): Buffer[] {
  const out: Buffer[] = [];
  let seq = 10;
  for (let d = 0; d < 12; d++) {
    const entries: number[] = [];
    for (let c = 0; c < CLOCKS; c++) {
      if (d < 4) entries.push(...clock(0xc000 + (c & 1), 0xea, 'read'));
      else if (d === 4 && c < 100)
        entries.push(
          ...(c === 50 ? clock(0xfffc, 0x00, 'read') : c === 51 ? clock(0xfffd, 0xc0, 'read') : clock(0xe000 + c, 0x60, 'read')),
        );
      else if (c % 3 === 0) entries.push(...clock(0xd7ff, c & 0xff, 'write'));
      else entries.push(...clock(0xc000 + (c % 3) - 1, c % 3 === 1 ? 0xa9 : 0x01, 'read'));
    }
    if (d === 7) seq += 2;
    out.push(datagram(d === 9 ? 5 : seq++, entries));
  }
  return out;
}

async function evidence(name: string, debugInfo?: Ca65DebugInfo): Promise<TimelineEvidence> {
  const capturePath = join(dir, `${name}.u64cap`);
  writeCapture(capturePath, datagrams());
  const { index } = await buildCaptureIndex(capturePath);
  const indexPath = join(dir, `${name}.tlix`);
  writeFileSync(indexPath, index);
  return {
    capturePath,
    indexPath,
    indexSha256: createHash('sha256').update(index).digest('hex'),
    product: 'u64',
    ...(debugInfo ? { debugInfo } : {}),
  };
}

// A resolver that claims every address of $C000-$C0FF for the program's source (what the real
// ld65 --dbgfile does for the program's bytes: ca65-debug-info.ts, timeline.test.ts).
const fakeInfo = {
  resolve: (a: number) =>
    a >= 0xc000 && a < 0xc100 ? { location: { file: 'prog.s', line: 1 + (a & 0xff) }, symbol: { name: 'start', address: 0xc000 } } : {},
} as unknown as Ca65DebugInfo;

const bus = (rows: Array<{ kind: string }>) => rows.filter((r): r is BusRow => r.kind === 'bus');

test("the program start is the judge's: the first opcode fetch in the load range after the reset; the old program there does not count", async () => {
  const ev = await evidence('start');
  const range = prgLoadRange(PRG);
  assert.deepEqual(range, { start: 0xc000, end: 0xc005 });
  const start = await findProgramStart(ev.capturePath, ev.indexPath, range!, 'u64');
  // Datagram 4, clock 100 (the first clock of the loop: c=100, 100 % 3 = 1 → read $C000 = $A9), CPU half = entry 201.
  // The old program's fetches at $C000/$C001 in datagrams 0-3 came before the reset's vector fetch.
  assert.deepEqual(start, { ordinal: 4, entry: 201 });
  // A program loaded where nothing is fetched after the reset never started in this capture.
  assert.equal(await findProgramStart(ev.capturePath, ev.indexPath, { start: 0x2000, end: 0x20ff }, 'u64'), null);
});

test('cycles count from the first fetch, negative before it; rows before it are marked and not resolved to the source', async () => {
  const ev = await evidence('cycles', fakeInfo);
  const programStart = { ordinal: 4, entry: 201 };
  const page = await readTimelinePage({ ...ev, programStart }, { limit: 4096, addressFrom: 0xc000, addressTo: 0xc001, access: 'read' });
  assert.equal(page.cycle_origin, 'program_start');
  assert.equal(page.cycle_unit, 'clock');
  assert.deepEqual(page.program_start, { cursor: '4:201' });
  const rows = bus(page.rows);
  const first = rows.find((r) => r.cursor === '4:201');
  assert.equal(first?.cycle, 0);
  assert.equal(first?.before_program_start, false);
  assert.deepEqual(first?.source, { file: 'prog.s', line: 1, symbol: 'start', symbol_offset: 0 });
  const old = rows.filter((r) => r.datagram_ordinal < 4);
  assert.equal(old.length, 4 * CLOCKS);
  assert.ok(old.every((r) => r.before_program_start === true && r.source === null && (r.cycle ?? 0) < 0));
  // The very first CPU access of the capture: clock 0 of the capture, 4*180+100 clocks before the start.
  assert.equal(old[0]?.cycle, -(4 * CLOCKS + 100));
  // Next read after the start: c=101 reads $C001, one clock later.
  assert.equal(rows[rows.indexOf(first!) + 1]?.cycle, 1);
  // Across the 2 lost datagrams after datagram 6: datagram 7's first CPU half is 3 datagrams after datagram 6's.
  const d6 = rows.find((r) => r.datagram_ordinal === 6);
  const d7 = rows.find((r) => r.datagram_ordinal === 7);
  assert.equal((d7?.cycle ?? 0) - (d6?.cycle ?? 0), 3 * CLOCKS);
  // The out-of-order datagram cannot be placed in time: its rows carry no cycle (its bus rows are not shown as such).
  assert.ok(page.rows.some((r) => r.kind === 'uncertain' && r.datagram_ordinal === 9));
});

test('a program that never started in the capture: every row is before it; unknown start: no marking, cycles from the capture start', async () => {
  const ev = await evidence('never');
  const none = await readTimelinePage({ ...ev, programStart: null }, { limit: 10 });
  assert.equal(none.program_start, null);
  assert.equal(none.cycle_origin, 'capture_start');
  assert.ok(bus(none.rows).every((r) => r.before_program_start === true));
  const unknown = await readTimelinePage(ev, { limit: 10 });
  assert.equal(unknown.program_start, undefined);
  assert.ok(bus(unknown.rows).every((r) => r.before_program_start === undefined));
  assert.deepEqual(
    bus(unknown.rows).map((r) => r.cycle),
    [0, 0, 1, 1, 2, 2, 3, 3, 4, 4],
  );
});

test('a row filter scans as far as the address filter does: matches after more than `limit` other rows are found', async () => {
  const ev = await evidence('keep', fakeInfo);
  const page = await readTimelinePage(
    { ...ev, programStart: { ordinal: 4, entry: 201 } },
    { limit: 5, keep: (r) => r.source?.file === 'prog.s' },
  );
  // The first 4 datagrams (1,440 entries) are the old program's and the boot's: none is prog.s.
  const rows = bus(page.rows);
  assert.equal(rows.length, 5);
  assert.ok(rows.every((r) => r.source?.file === 'prog.s' && r.before_program_start === false));
  assert.equal(rows[0]?.cursor, '4:201');
  assert.ok(page.scanned_datagrams >= 1);
});

test('"6510 Only" captures: one entry per CPU bus cycle, so the cycle is the entry position (the unit says so)', async () => {
  // Only the CPU's halves of the same trace: 180 entries a datagram would be 360 in this fixture, so
  // build a CPU-only capture directly: each entry a CPU read, the program starting at entry 100 of datagram 2.
  const capturePath = join(dir, 'cpu-only.u64cap');
  const grams: Buffer[] = [];
  for (let d = 0; d < 4; d++) {
    const entries: number[] = [];
    for (let i = 0; i < N; i++) {
      // Datagram 1: the reset's vector fetch; datagram 2, entry 100: the fetch of $C000, then $C001.
      const at =
        d === 1 && i === 10
          ? 0xfffc
          : d === 1 && i === 11
            ? 0xfffd
            : d === 2 && i === 100
              ? 0xc000
              : d === 2 && i === 101
                ? 0xc001
                : 0xe000 + i;
      entries.push(entry(at, at === 0xc000 ? 0xa9 : 0x60, 'read'));
    }
    grams.push(datagram(d, entries));
  }
  writeCapture(capturePath, grams);
  const { index } = await buildCaptureIndex(capturePath);
  const indexPath = join(dir, 'cpu-only.tlix');
  writeFileSync(indexPath, index);
  const ev: TimelineEvidence = {
    capturePath,
    indexPath,
    indexSha256: createHash('sha256').update(index).digest('hex'),
    product: 'u64',
    streamMode: '6510 Only',
  };
  const programStart = await findProgramStart(capturePath, indexPath, prgLoadRange(PRG)!, 'u64');
  assert.deepEqual(programStart, { ordinal: 2, entry: 100 });
  const page = await readTimelinePage({ ...ev, programStart }, { limit: 3 });
  assert.equal(page.cycle_unit, 'cpu_bus_cycle');
  assert.deepEqual(
    bus(page.rows).map((r) => r.cycle),
    [-(2 * N + 100), -(2 * N + 99), -(2 * N + 98)],
  );
  // The same capture read as a VIC mode has no VIC halves: its datagrams are not aligned on clocks.
  const wrong = await readTimelinePage({ ...ev, streamMode: '6510 & VIC', programStart }, { limit: 3 });
  assert.equal(wrong.cycle_origin, null);
  assert.ok(bus(wrong.rows).every((r) => r.cycle === null));
});

test("a program BASIC runs: the timeline's start is BASIC's read of the first statement byte, as the judge settles it", async () => {
  // `10 POKE 55295,0` at $0801 (first statement byte $0805). One datagram of clocks: the reset's
  // vector fetch at clocks 10/11, the KERNAL's RAM test reading $0805 after $00C2 at 20/21 (not
  // BASIC), CHRGOT reading $007B then $0805 at 40/41 (BASIC's start), ROM reads, then at clock 90
  // the POKE's write of $D7FF, with no opcode fetch inside $0801-$080F anywhere.
  const basicPrg = Uint8Array.from([0x01, 0x08, 0x0e, 0x08, 0x0a, 0x00, 0x97, ...Buffer.from('55295,0'), 0, 0, 0]);
  const range = prgLoadRange(basicPrg)!;
  const at: Record<number, [number, 'read' | 'write']> = {
    10: [0xfffc, 'read'],
    11: [0xfffd, 'read'],
    20: [0x00c2, 'read'],
    21: [0x0805, 'read'],
    40: [0x007b, 'read'],
    41: [0x0805, 'read'],
    90: [0xd7ff, 'write'],
  };
  const capture = (name: string, withWrite: boolean) => {
    const entries: number[] = [];
    for (let c = 0; c < CLOCKS; c++) {
      const [address, kind] = at[c] && (withWrite || c !== 90) ? at[c]! : [0xa000 + 2 * c, 'read' as const];
      entries.push(...clock(address, 0, kind));
    }
    const capturePath = join(dir, `${name}.u64cap`);
    writeCapture(capturePath, [datagram(1, entries)]);
    return capturePath;
  };
  for (const withWrite of [true, false]) {
    const capturePath = capture(`basic-${withWrite}`, withWrite);
    const { index } = await buildCaptureIndex(capturePath);
    const indexPath = join(dir, `basic-${withWrite}.tlix`);
    writeFileSync(indexPath, index);
    // Clock 41's CPU half is entry 83. Without the write the capture ends with only BASIC's start
    // seen: the program ran (the judge settles there at the run's end), so that is the start too.
    assert.deepEqual(await findProgramStart(capturePath, indexPath, range, 'u64'), { ordinal: 0, entry: 83 }, `write: ${withWrite}`);
  }
  // The same capture with a machine-code PRG at $C000: neither start.
  const other = capture('basic-other', true);
  const { index } = await buildCaptureIndex(other);
  writeFileSync(join(dir, 'basic-other.tlix'), index);
  assert.equal(await findProgramStart(other, join(dir, 'basic-other.tlix'), { start: 0xc000, end: 0xc0ff }, 'u64'), null);
});
