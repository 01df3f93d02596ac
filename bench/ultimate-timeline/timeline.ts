// get_run_timeline's core on a 30-second capture (82,110 datagrams ≈ 120 MB), side by side with
// the obvious peer: reading and verifying the whole capture for each page (readCaptureFile, the
// device layer's whole-file reader). Pages: first, middle, last, and an address-filtered page;
// plus source-linked resolution of a full 4,096-row page against a real ld65 debug info file.
//
//   node --import tsx bench/ultimate-timeline/timeline.ts [pages-per-case]
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCaptureFile } from '../../engines/ultimate/debug-stream/capture-file.js';
import { Ca65DebugInfo } from '../../services/ultimate-tool/timeline/ca65-debug-info.js';
import { buildCaptureIndex } from '../../services/ultimate-tool/timeline/capture-index.js';
import { readTimelinePage, type TimelineEvidence } from '../../services/ultimate-tool/timeline/timeline-page.js';
import { datagram, entry, writeCapture } from '../../test/services/ultimate-tool/timeline/capture-fixture.js';

const pages = Number(process.argv[2] ?? 40);
const DATAGRAMS = 82_110; // 30 s at the device's 2,737 datagrams/s

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
}

const dir = mkdtempSync(join(tmpdir(), 'timeline-bench-'));
try {
  const grams: Buffer[] = [];
  for (let i = 0; i < DATAGRAMS; i++)
    grams.push(
      datagram(i, [
        entry(0x0801 + (i % 64), i & 0xff, 'read'),
        entry(0xd020 + (i % 2), 1, 'write'),
        entry(0x0400 + (i % 1000), 0x20, 'vic'),
      ]),
    );
  const capturePath = join(dir, 'run.u64cap');
  writeCapture(capturePath, grams);
  grams.length = 0;
  const t0 = performance.now();
  const { index } = await buildCaptureIndex(capturePath);
  const indexMs = performance.now() - t0;
  const indexPath = join(dir, 'run.tlix');
  writeFileSync(indexPath, index);
  const ev: TimelineEvidence = { capturePath, indexPath, indexSha256: createHash('sha256').update(index).digest('hex'), product: 'u64' };

  const cases: Array<[string, Parameters<typeof readTimelinePage>[1]]> = [
    ['first page (256 rows)', {}],
    ['middle page (256 rows)', { cursor: `${DATAGRAMS >> 1}:0` }],
    ['last page (256 rows)', { cursor: `${DATAGRAMS - 1}:100` }],
    [
      'address-filtered page ($D021 writes, 4096 rows)',
      { addressFrom: 0xd021, addressTo: 0xd021, access: 'write', limit: 4096, cursor: `${DATAGRAMS >> 2}:0` },
    ],
  ];
  const rssBefore = process.memoryUsage().rss;
  console.log(`capture: ${DATAGRAMS} datagrams, index built once in ${indexMs.toFixed(0)} ms (${(index.length / 1e6).toFixed(2)} MB)`);
  for (const [name, q] of cases) {
    const times: number[] = [];
    for (let i = 0; i < pages; i++) {
      const s = performance.now();
      await readTimelinePage(ev, q);
      times.push(performance.now() - s);
    }
    console.log(`${name.padEnd(50)} median ${percentile(times, 50).toFixed(2)} ms  p95 ${percentile(times, 95).toFixed(2)} ms`);
  }
  const rssAfter = process.memoryUsage().rss;
  console.log(`rss growth over ${pages * cases.length} pages: ${((rssAfter - rssBefore) / 1e6).toFixed(1)} MB`);

  // The peer: verify and parse the whole capture for a page.
  const peer: number[] = [];
  for (let i = 0; i < 3; i++) {
    const s = performance.now();
    await readCaptureFile(capturePath);
    peer.push(performance.now() - s);
  }
  const ours = [];
  for (let i = 0; i < 20; i++) {
    const s = performance.now();
    await readTimelinePage(ev, { cursor: `${DATAGRAMS >> 1}:0` });
    ours.push(performance.now() - s);
  }
  const ratio = percentile(peer, 50) / percentile(ours, 50);
  console.log(
    `peer (whole-file read+verify per page) median ${percentile(peer, 50).toFixed(0)} ms; ours ${percentile(ours, 50).toFixed(2)} ms → ${ratio.toFixed(0)}× faster`,
  );

  // Source-linked resolution of a full 4096-row page.
  const src = join(dir, 'probe.s');
  const body = ['.segment "STARTUP"'];
  for (let i = 0; i < 64; i++) body.push(`l${i}:`, '  lda #$01', '  sta $d020');
  writeFileSync(src, `${body.join('\n')}\n`);
  execFileSync('ca65', ['-g', src, '-o', join(dir, 'p.o')]);
  execFileSync('ld65', ['-t', 'none', '-S', '0x0801', '-o', join(dir, 'p.prg'), '--dbgfile', join(dir, 'p.dbg'), join(dir, 'p.o')]);
  const info = Ca65DebugInfo.parse(readFileSync(join(dir, 'p.dbg'), 'utf8'));
  const linked = { ...ev, debugInfo: info };
  const plain: number[] = [];
  const withSource: number[] = [];
  for (let i = 0; i < pages; i++) {
    let s = performance.now();
    await readTimelinePage(ev, { limit: 4096, cursor: `${i * 100}:0` });
    plain.push(performance.now() - s);
    s = performance.now();
    await readTimelinePage(linked, { limit: 4096, cursor: `${i * 100}:0` });
    withSource.push(performance.now() - s);
  }
  console.log(
    `4096-row page: bus_only median ${percentile(plain, 50).toFixed(2)} ms; source_linked median ${percentile(withSource, 50).toFixed(2)} ms (resolution adds ${(percentile(withSource, 50) - percentile(plain, 50)).toFixed(2)} ms)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
