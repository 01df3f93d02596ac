// The run timeline read from a real capture file through its index: paging, filters, gap and
// uncertainty rows, tamper detection, and source lines from a real ld65 debug info file.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Ca65DebugInfo } from '../../../../services/ultimate-tool/timeline/ca65-debug-info.js';
import { buildCaptureIndex } from '../../../../services/ultimate-tool/timeline/capture-index.js';
import {
  readTimelinePage,
  type TimelineEvidence,
  type TimelineRow,
  TimelineError,
} from '../../../../services/ultimate-tool/timeline/timeline-page.js';
import { datagram, entry, writeCapture } from './capture-fixture.js';

const dir = mkdtempSync(join(tmpdir(), 'timeline-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// 200 datagrams; sequence 100..; datagrams 50–52 lost (a gap before ordinal 50); ordinal 120 malformed (2 bytes).
function fixtureDatagrams(): Buffer[] {
  const out: Buffer[] = [];
  let seq = 100;
  for (let i = 0; i < 200; i++) {
    if (i === 50) seq += 3;
    if (i === 120) {
      out.push(Buffer.from([0, 0]));
      continue;
    }
    const pattern = [entry(0x0801 + (i % 16), i & 0xff, 'read'), entry(0xd020, i & 0x0f, 'write'), entry(0x0400 + i, 0x20, 'vic', false)];
    out.push(datagram(seq++, pattern));
  }
  return out;
}

async function evidenceFor(name: string, debugInfo?: Ca65DebugInfo): Promise<TimelineEvidence> {
  const capturePath = join(dir, `${name}.u64cap`);
  writeCapture(capturePath, fixtureDatagrams());
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

let ev: TimelineEvidence;
before(async () => {
  ev = await evidenceFor('main');
});

test('the first page starts at 0:0 with decoded bus rows and a next cursor', async () => {
  const page = await readTimelinePage(ev, { limit: 4 });
  assert.equal(page.mode, 'bus_only');
  assert.equal(page.total_datagrams, 200);
  assert.deepEqual(
    page.rows.map((r) => (r.kind === 'bus' ? [r.cursor, r.address_hex, r.access, r.data] : r.kind)),
    [
      ['0:0', '$0801', 'read', 0],
      ['0:1', '$D020', 'write', 0],
      ['0:2', '$0400', 'vic', 0x20],
      ['0:3', '$0801', 'read', 0],
    ],
  );
  assert.equal(page.next_cursor, '0:4');
  const r2 = page.rows[2];
  assert.ok(r2?.kind === 'bus' && r2.ba === false && r2.phi2 === false);
});

test('paging with any limit visits every row exactly once, in order', async () => {
  const all: TimelineRow[] = [];
  let cursor: string | undefined;
  do {
    const page = await readTimelinePage(ev, { limit: 1000, ...(cursor ? { cursor } : {}) });
    all.push(...page.rows);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  const bus = all.filter((r) => r.kind === 'bus').length;
  assert.equal(bus, 199 * 360);
  assert.deepEqual(
    all.filter((r) => r.kind !== 'bus').map((r) => [r.kind, r.cursor]),
    [
      ['gap', '50:0'],
      ['uncertain', '120:0'],
    ],
  );
  const gap = all.find((r) => r.kind === 'gap');
  assert.ok(gap?.kind === 'gap' && gap.missing_datagrams === 3);
  // A page that starts mid-datagram continues exactly where the last one stopped.
  const mid = await readTimelinePage(ev, { cursor: '50:359', limit: 2 });
  assert.deepEqual(
    mid.rows.map((r) => r.cursor),
    ['50:359', '51:0'],
  );
});

test('address range and access filters; gap and uncertainty rows stay visible', async () => {
  const page = await readTimelinePage(ev, { cursor: '45:0', addressFrom: 0xd020, addressTo: 0xd020, access: 'write', limit: 4096 });
  const bus = page.rows.filter((r) => r.kind === 'bus');
  assert.ok(bus.length > 0);
  assert.ok(bus.every((r) => r.kind === 'bus' && r.address === 0xd020 && r.access === 'write'));
  // 120 writes to $D020 per datagram: the page fills inside datagram 79, past the gap at 50.
  assert.deepEqual(
    page.rows.filter((r) => r.kind !== 'bus').map((r) => r.cursor),
    ['50:0'],
  );
  assert.equal(page.next_cursor, '79:46'); // 1 gap row + 34 × 120 writes + 15 more (entries 1, 4, …, 43)
  const none = await readTimelinePage(ev, { addressFrom: 0xe000, addressTo: 0xe0ff, limit: 10 });
  assert.deepEqual(
    none.rows.map((r) => r.kind),
    ['gap', 'uncertain'],
  );
  assert.equal(none.next_cursor, null);
  assert.equal(none.scanned_datagrams, 200);
});

test('bad cursors, limits, ranges are timeline_failed errors naming what was expected', async () => {
  const cases: Array<[Parameters<typeof readTimelinePage>[1], RegExp]> = [
    [{ cursor: 'abc' }, /DATAGRAM_ORDINAL:ENTRY_INDEX/],
    [{ cursor: '200:0' }, /past the end: the capture has 200 datagrams/],
    [{ cursor: '0:360' }, /entry 360 is past the end of datagram 0 \(360 entries\)/],
    [{ limit: 0 }, /limit 0 is outside 1\.\.4096/],
    [{ limit: 4097 }, /outside 1\.\.4096/],
    [{ addressFrom: 0x2000, addressTo: 0x1000 }, /address_from \$2000 is above address_to \$1000/],
    [{ addressTo: 0x10000 }, /outside 0\.\.65535/],
  ];
  for (const [q, message] of cases) {
    await assert.rejects(
      readTimelinePage(ev, q),
      (e: unknown) => e instanceof TimelineError && e.code === 'timeline_failed' && message.test(e.message),
    );
  }
});

test('a tampered capture block or index is refused as timeline_failed, other pages of an intact block still read', async () => {
  const t = await evidenceFor('tamper');
  // Flip one byte inside datagram 130 (block 2).
  const bytes = readFileSync(t.capturePath);
  const at = 32 + 130 * (12 + 1444) + 12 + 100;
  const fd = openSync(t.capturePath, 'r+');
  writeSync(fd, Buffer.from([(bytes[at] ?? 0) ^ 0xff]), 0, 1, at);
  closeSync(fd);
  await assert.rejects(
    readTimelinePage(t, { cursor: '130:0' }),
    (e: unknown) => e instanceof TimelineError && e.reason === 'capture-checksum-mismatch',
  );
  assert.equal((await readTimelinePage(t, { cursor: '0:0', limit: 10 })).rows.length, 10);
  writeFileSync(t.indexPath, Buffer.concat([readFileSync(t.indexPath), Buffer.from([0])]));
  await assert.rejects(readTimelinePage(t, {}), (e: unknown) => e instanceof TimelineError && e.reason === 'index-checksum-mismatch');
});

test('buildCaptureIndex refuses a capture whose embedded SHA-256 does not match', async () => {
  const path = join(dir, 'bad.u64cap');
  writeCapture(path, fixtureDatagrams().slice(0, 3));
  const b = readFileSync(path);
  b[40] = (b[40] ?? 0) ^ 1;
  writeFileSync(path, b);
  await assert.rejects(buildCaptureIndex(path), /SHA-256 mismatch/);
});

test('source-linked rows resolve to file, line and symbol from a real ld65 --dbgfile', async () => {
  const src = join(dir, 'probe.s');
  writeFileSync(src, ['.segment "STARTUP"', 'start:', '  lda #$01', '  sta $d020', 'loop:', '  inc $d021', '  jmp loop', ''].join('\n'));
  execFileSync('ca65', ['-g', src, '-o', join(dir, 'probe.o')]);
  execFileSync('ld65', [
    '-t',
    'none',
    '-S',
    '0x0801',
    '-o',
    join(dir, 'probe.prg'),
    '--dbgfile',
    join(dir, 'probe.dbg'),
    join(dir, 'probe.o'),
  ]);
  const info = Ca65DebugInfo.parse(readFileSync(join(dir, 'probe.dbg'), 'utf8'));
  assert.deepEqual(info.resolve(0x0801), { location: { file: src, line: 3 }, symbol: { name: 'start', address: 0x0801 } });
  assert.deepEqual(info.resolve(0x0804).location, { file: src, line: 4 });
  assert.deepEqual(info.resolve(0x0807), { location: { file: src, line: 6 }, symbol: { name: 'loop', address: 0x0806 } });
  const linked = await evidenceFor('linked', info);
  const page = await readTimelinePage(linked, { limit: 3 });
  assert.equal(page.mode, 'source_linked');
  const first = page.rows[0];
  assert.ok(first?.kind === 'bus');
  assert.deepEqual(first.source, { file: src, line: 3, symbol: 'start', symbol_offset: 0 });
  // An I/O register is no line of the program (not "loop + 51226"): unmapped, the register named (issue 35).
  const io = page.rows[1];
  assert.ok(io?.kind === 'bus' && io.address === 0xd020);
  assert.equal(io.source, null);
  assert.deepEqual(io.hardware, { space: 'io', area: 'VIC-II', register: 'border colour', name: 'VIC-II border colour' });
  const vic = page.rows[2];
  assert.ok(vic?.kind === 'bus');
  assert.equal(vic.source, null, '$0400 is not in the program');
  assert.throws(() => Ca65DebugInfo.parse('not a dbg file'), /version 2/);
});
