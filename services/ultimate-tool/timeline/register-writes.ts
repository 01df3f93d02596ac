// Every CPU write to one address in a verified debug-stream capture, in order: the exact record
// of what a program wrote to the debug register ($D7FF). A capture run's progress markers come
// from here, not from REST polling of the register beside the capture — polling every few ms
// misses writes that follow each other faster (a source-linked run showed 11 of its 16 markers
// while its own trace held all 16).
import { type TimelineEvidence, readTimelinePage } from './timeline-page.js';

/** The values written to `address` after the program started (writes before its first instruction are the loader's). */
export async function writesInCapture(evidence: TimelineEvidence, address: number): Promise<number[]> {
  const values: number[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await readTimelinePage(evidence, { cursor, limit: 4096, addressFrom: address, addressTo: address, access: 'write' });
    for (const row of page.rows) if (row.kind === 'bus' && row.before_program_start !== true) values.push(row.data);
    if (page.next_cursor === null) return values;
    cursor = page.next_cursor;
  }
}
