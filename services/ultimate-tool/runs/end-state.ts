// The end state of a run as the judge sees it: screen RAM (text, screen_match), colour RAM, the
// border and background, and every expect.memory entry, read through the target at the one moment
// it reports — the same reads and the same words for an ordinary run (run-test.ts) and a capture run
// (jobs/captures.ts), so one program gets one verdict for one reason (issue 35). Writes the screen
// evidence (screen.txt, screenshot.png, screen-ram.bin, colour-ram.bin).
import { addressHex } from '../api/address.js';
import type { TestSpec } from '../project/manifest.js';
import type { TargetConnection } from '../targets/connection.js';
import type { EvidenceWriter } from './evidence.js';
import { type MemoryCheck, hex8 } from './run-judge.js';
import { COLOUR_RAM, SCREEN_BYTES, SCREEN_RAM, matchScreen, renderScreenPng, screenLines } from './screen.js';

export interface ScreenMatchRecord {
  text: string;
  row: number | null;
  matched: boolean;
  found_at: { row: number; column: number } | null;
}

export interface EndStateReading {
  /** The 25 text lines of screen RAM (observations.screen_text). */
  lines: string[];
  /** The record's screen_match; null without expect.screen_match. */
  screenMatch: ScreenMatchRecord | null;
  /** screen_match as the judge takes it; null without expect.screen_match. */
  screen: { matched: boolean; reason: string } | null;
  /** observations.memory: each expectation with what was read. */
  memory: Array<Record<string, unknown>>;
  /** Each memory expectation as the judge takes it. */
  memoryChecks: MemoryCheck[];
}

function hexBytes(b: Uint8Array): string {
  return Buffer.from(b).toString('hex');
}

/** The first offset where `got` and `want` differ in the bits of `mask` (all bits without one); null if none. */
function firstMaskedDifference(got: Uint8Array, want: Uint8Array, mask?: Uint8Array): number | null {
  for (let i = 0; i < want.length; i++) {
    const m = mask ? (mask[i] ?? 0xff) : 0xff;
    if (((got[i] ?? 0) & m) !== ((want[i] ?? 0) & m)) return i;
  }
  return got.length < want.length ? got.length : null;
}

/**
 * Reads the end state through `conn` (screen, colours, memory expectations) and writes the screen
 * evidence. `screenBytes`: screen RAM already read (a run observed by the screen polled it).
 */
export async function readEndState(
  conn: Pick<TargetConnection, 'readMemory'>,
  test: TestSpec,
  evidence: EvidenceWriter,
  screenBytes?: Uint8Array,
): Promise<EndStateReading> {
  const screenRam = screenBytes ?? (await conn.readMemory(SCREEN_RAM, SCREEN_BYTES));
  const colour = (await conn.readMemory(COLOUR_RAM, SCREEN_BYTES)).map((c) => c & 15);
  const [border = 14, background = 6] = await conn.readMemory(0xd020, 2);
  const lines = screenLines(screenRam);
  const spec = test.expect.screen_match;
  let screenMatch: ScreenMatchRecord | null = null;
  let screen: EndStateReading['screen'] = null;
  if (spec) {
    const found = matchScreen(lines, spec.text, spec.row);
    screenMatch = { text: spec.text, row: spec.row ?? null, matched: found !== null, found_at: found };
    const where = spec.row === undefined ? '' : ` on row ${spec.row}`;
    screen = {
      matched: found !== null,
      reason: found
        ? `screen RAM shows ${JSON.stringify(spec.text)} at row ${found.row}, column ${found.column}`
        : test.observe === 'screen'
          ? `screen RAM did not show ${JSON.stringify(spec.text)}${where} within the ${test.budget.time_ms} ms budget`
          : `screen RAM does not show ${JSON.stringify(spec.text)}${where} at the end of the run`,
    };
  }
  await evidence.add('screen.txt', 'text/plain; charset=utf-8', Buffer.from(`${lines.join('\n')}\n`));
  await evidence.add(
    'screenshot.png',
    'image/png',
    renderScreenPng({ screen: screenRam, colour, border: border & 15, background: background & 15 }),
  );
  await evidence.add('screen-ram.bin', 'application/octet-stream', screenRam);
  await evidence.add('colour-ram.bin', 'application/octet-stream', colour);

  const memory: Array<Record<string, unknown>> = [];
  const memoryChecks: MemoryCheck[] = [];
  for (const m of test.expect.memory) {
    const want = Buffer.from(m.bytes, 'hex');
    const got = await conn.readMemory(m.address, want.length);
    const diff = firstMaskedDifference(got, want, m.mask === undefined ? undefined : Buffer.from(m.mask, 'hex'));
    const ok = diff === null;
    memory.push({
      address: m.address,
      address_hex: addressHex(m.address),
      expected: m.bytes,
      ...(m.mask !== undefined ? { mask: m.mask } : {}),
      actual: hexBytes(got),
      matched: ok,
      ...(diff !== null
        ? { first_difference: { address_hex: addressHex(m.address + diff), expected: hex8(want[diff] ?? 0), actual: hex8(got[diff] ?? 0) } }
        : {}),
    });
    memoryChecks.push({
      address: m.address,
      matched: ok,
      reason: ok
        ? `memory at ${addressHex(m.address)} matched`
        : want.length <= 16
          ? `memory at ${addressHex(m.address)} is ${hexBytes(got)}, expected ${m.bytes}${m.mask ? ` (mask ${m.mask})` : ''}`
          : `memory at ${addressHex(m.address + (diff ?? 0))} is ${hex8(got[diff ?? 0] ?? 0)}, expected ${hex8(want[diff ?? 0] ?? 0)} (first difference of ${want.length} bytes from ${addressHex(m.address)})`,
    });
  }
  return { lines, screenMatch, screen, memory, memoryChecks };
}
