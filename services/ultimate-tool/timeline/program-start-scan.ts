// Where, in a run's capture, its program executed its first instruction — the boundary between the
// rows of whatever ran before the reset (the previous program, the boot) and the rows of this one,
// and the timeline's cycle origin. The same recognition as the judge (issue 35.4: one clock): the
// first opcode fetch inside the PRG's load range after the reset's vector fetch, or where BASIC
// began a program that wrote $D7FF before any such fetch or whose capture ends without one
// (ProgramStartDetector, targets/program-start.ts), fed the same accesses the judge's bus-trace
// observer feeds it (CPU writes, and CPU reads with BA high). One pass over the capture from its
// first datagram until the start, block by block, each block re-hashed against the index as a
// timeline page does: a tampered capture cannot move the boundary unseen. Out-of-order and
// malformed datagrams are skipped (their place in time is unknown). The service caches the answer
// per run (runs are immutable).
import { ProgramStartDetector } from '../targets/program-start.js';
import { capturedDatagrams } from './capture-datagrams.js';
import { type ProgramStartCursor, type StreamProduct, decodeFlags } from './timeline-page.js';

export async function findProgramStart(
  capturePath: string,
  indexPath: string,
  loadRange: { start: number; end: number },
  product: StreamProduct,
): Promise<ProgramStartCursor | null> {
  const detector = new ProgramStartDetector(loadRange);
  // The detector hands back the "clock" of the access it recognised: here, the access's place in
  // the capture, from which the cursor is recovered.
  const places: ProgramStartCursor[] = [];
  let basic: ProgramStartCursor | null = null;
  let place = 0;
  for await (const d of capturedDatagrams(capturePath, indexPath)) {
    if (!d.placed) continue;
    for (let e = 0; e < d.entryCount; e++) {
      const word = d.entry(e);
      const flags = decodeFlags(word, product);
      if (flags.access !== 'write' && flags.access !== 'read') continue;
      places[place & 1] = { ordinal: d.ordinal, entry: e };
      const address = word & 0xffff;
      if (flags.access === 'write') {
        detector.write(address, place++);
        // BASIC wrote the debug register before any machine code ran (as the judge settles it).
        if (address === 0xd7ff && basic) return basic;
      } else {
        const fetch = detector.read(address, place++);
        if (fetch !== null) return places[fetch & 1]!;
        if (!basic && detector.basicStart !== null) basic = places[detector.basicStart & 1]!;
      }
    }
  }
  // No machine code ran: BASIC's start, when BASIC ran the program.
  return basic;
}
