// One page of a run's bus-trace timeline, read from its checksummed capture through the capture
// index (capture-index.ts): seek to the cursor's datagram, re-hash only the 64-record blocks the
// page touches, decode entries into rows, and stop at `limit` rows or after MAX_SCAN_DATAGRAMS
// datagrams (so a narrow address filter cannot make one page read the whole capture).
//
// Rows are bus accesses, not a disassembly: no instruction, call or return labels are produced.
// Each bus row carries its cycle, counted from the entry's position in the stream, with the
// datagrams lost before it counted by sequence number (all full datagrams hold the same number of
// entries). Its unit depends on the stream mode the capture recorded: in "6510 & VIC" (two entries
// per clock, the VIC's half first) it is the clock; in "6510 Only" (one entry per CPU bus cycle,
// the clocks the VIC takes for bad lines and sprites absent) it is the CPU's bus cycles. The
// origin is the program's first instruction when the run knows where it started, so rows before
// it (the program that ran before the reset, the boot) have negative cycles and are marked
// `before_program_start` — and are never resolved to this program's source.
// Gap rows stand where datagrams were lost (by sequence number); uncertainty rows stand for
// datagrams whose content cannot be trusted (malformed length, out-of-order arrival). Both are
// always included, whatever the filters, because a filtered access may hide in them.
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { openEvidenceFile } from '../runs/evidence-file.js';
import type { Ca65DebugInfo } from './ca65-debug-info.js';
import { INDEX_BLOCK_HASH_BYTES, INDEX_HEADER_BYTES, INDEX_MAGIC, INDEX_RECORD_BYTES, INDEX_VERSION } from './capture-index.js';
import { addressHex } from '../api/address.js';
import { describeHardware, hardwareAt } from '../analysis/hardware-addresses.js';

export const TIMELINE_LIMIT_DEFAULT = 256;
export const TIMELINE_LIMIT_MAX = 4096;
/** At most this many datagrams (~1.5 M bus entries) are scanned for one page. */
export const MAX_SCAN_DATAGRAMS = 4096;

export const RECORD_HEADER_BYTES = 12;
export const DATAGRAM_HEADER_BYTES = 4;

/** The bit layout of the stream differs per product (docs/ultimate/DEVICE-CLIENT.md). */
export type StreamProduct = 'u64' | 'u2plus';

export type TimelineFailure =
  | 'invalid-cursor'
  | 'invalid-limit'
  | 'invalid-address-range'
  | 'invalid-access'
  | 'index-checksum-mismatch'
  | 'capture-checksum-mismatch'
  | 'index-malformed';

export class TimelineError extends Error {
  override readonly name = 'TimelineError';
  readonly code = 'timeline_failed';
  constructor(
    readonly reason: TimelineFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface TimelineQuery {
  /** `DATAGRAM_ORDINAL:ENTRY_INDEX`; absent = the start. */
  cursor?: string;
  limit?: number;
  /** Inclusive range, 0..0xFFFF. */
  addressFrom?: number;
  addressTo?: number;
  access?: 'read' | 'write';
  /** Only bus rows it accepts are returned (and count towards `limit`); the scan is bounded as for the address filter. */
  keep?: (row: BusRow) => boolean;
}

/** Where the program's first instruction is in the capture (its opcode fetch), or null when it never ran. */
export interface ProgramStartCursor {
  ordinal: number;
  entry: number;
}

export interface TimelineEvidence {
  capturePath: string;
  indexPath: string;
  /** The index's SHA-256 as registered in the immutable run record. */
  indexSha256: string;
  product: StreamProduct;
  /** Present for a source-linked run: its own snapshotted debug info. */
  debugInfo?: Ca65DebugInfo;
  /** Where the run's program started; null = not in the capture; absent = unknown (no PRG to look for). */
  programStart?: ProgramStartCursor | null;
  /** The firmware's Debug Stream Mode the capture was made in (decides the cycle unit); absent: "6510 & VIC" assumed, checked per datagram. */
  streamMode?: string;
}

export interface BusRow {
  kind: 'bus';
  cursor: string;
  datagram_ordinal: number;
  entry_index: number;
  address: number;
  address_hex: string;
  data: number;
  /** CPU read, CPU write, or `vic` (a VIC half-cycle or a cycle the CPU did not drive). */
  access: 'read' | 'write' | 'vic';
  phi2: boolean;
  ba: boolean;
  irq_asserted: boolean;
  nmi_asserted: boolean;
  game_asserted: boolean;
  exrom_asserted: boolean;
  /** U64: the ROM# line (bit 26; what the core puts there is not public). U2+: cartridge ROML/ROMH selected. */
  rom_line_asserted: boolean;
  /** CPU clock of this access, from `cycle_origin`; null when the stream does not give exact clocks here. */
  cycle: number | null;
  /** Present when the program's start is known: this access came before its first instruction. */
  before_program_start?: boolean;
  source?: { file: string; line: number; symbol: string | null; symbol_offset: number | null } | null;
  /** An I/O address: the hardware there (its source is null: no line of the program describes a register). */
  hardware?: { space: string; area: string; register: string | null; name: string };
}

export interface GapRow {
  kind: 'gap';
  cursor: string;
  datagram_ordinal: number;
  /** Datagrams lost just before this one, by sequence number. */
  missing_datagrams: number;
}

export interface UncertainRow {
  kind: 'uncertain';
  cursor: string;
  datagram_ordinal: number;
  reason: 'malformed-datagram' | 'out-of-order';
  detail: string;
}

export type TimelineRow = BusRow | GapRow | UncertainRow;

export interface TimelinePage {
  mode: 'bus_only' | 'source_linked';
  rows: TimelineRow[];
  next_cursor: string | null;
  /** Datagrams looked at for this page (bounded by MAX_SCAN_DATAGRAMS). */
  scanned_datagrams: number;
  total_datagrams: number;
  /** What `cycle` 0 is: the program's first opcode fetch, or the capture's first entry; null: no cycles in this capture. */
  cycle_origin: 'program_start' | 'capture_start' | null;
  /** `clock`: φ2 clocks ("6510 & VIC"); `cpu_bus_cycle`: the CPU's bus cycles, clocks taken by the VIC absent ("6510 Only"). */
  cycle_unit: 'clock' | 'cpu_bus_cycle' | null;
  /** The program's first instruction, when known (null: it never ran in this capture). */
  program_start?: { cursor: string } | null;
}

export function parseCursor(cursor: string): { ordinal: number; entry: number } {
  const m = /^(\d{1,10}):(\d{1,4})$/.exec(cursor);
  if (!m)
    throw new TimelineError(
      'invalid-cursor',
      `cursor ${JSON.stringify(cursor)} is not DATAGRAM_ORDINAL:ENTRY_INDEX (two decimal numbers, e.g. "0:0")`,
    );
  return { ordinal: Number(m[1]), entry: Number(m[2]) };
}

function validate(q: TimelineQuery): Required<Pick<TimelineQuery, 'limit' | 'addressFrom' | 'addressTo'>> {
  const limit = q.limit ?? TIMELINE_LIMIT_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > TIMELINE_LIMIT_MAX)
    throw new TimelineError('invalid-limit', `limit ${limit} is outside 1..${TIMELINE_LIMIT_MAX}`);
  const addressFrom = q.addressFrom ?? 0;
  const addressTo = q.addressTo ?? 0xffff;
  for (const [name, v] of [
    ['address_from', addressFrom],
    ['address_to', addressTo],
  ] as const) {
    if (!Number.isInteger(v) || v < 0 || v > 0xffff) throw new TimelineError('invalid-address-range', `${name} ${v} is outside 0..65535`);
  }
  if (addressFrom > addressTo)
    throw new TimelineError(
      'invalid-address-range',
      `address_from ${addressHex(addressFrom)} is above address_to ${addressHex(addressTo)}`,
    );
  if (q.access !== undefined && q.access !== 'read' && q.access !== 'write')
    throw new TimelineError('invalid-access', `access ${JSON.stringify(q.access)} is not "read" or "write"`);
  return { limit, addressFrom, addressTo };
}

/** The first entry of a datagram (PHI2 low: a VIC half). */
async function firstEntryOf(index: FileHandle, capture: FileHandle, ordinal: number): Promise<number> {
  const rec = Buffer.alloc(INDEX_RECORD_BYTES);
  await index.read(rec, 0, INDEX_RECORD_BYTES, INDEX_HEADER_BYTES + ordinal * INDEX_RECORD_BYTES);
  const first = Buffer.alloc(4);
  const { bytesRead } = await capture.read(first, 0, 4, Number(rec.readBigUInt64LE(0)) + RECORD_HEADER_BYTES + DATAGRAM_HEADER_BYTES);
  return bytesRead === 4 ? first.readUInt32LE(0) : 0x80000000;
}

/** Hash a file with a fixed-size buffer (memory does not grow with the file). */
async function hashFile(path: string): Promise<string> {
  const fh = await openEvidenceFile(path);
  try {
    const hash = createHash('sha256');
    const buf = Buffer.allocUnsafe(1 << 16);
    let pos = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      hash.update(buf.subarray(0, bytesRead));
      pos += bytesRead;
    }
    return hash.digest('hex');
  } finally {
    await fh.close();
  }
}

export interface Decoded {
  access: 'read' | 'write' | 'vic';
  phi2: boolean;
  ba: boolean;
  irq: boolean;
  nmi: boolean;
  game: boolean;
  exrom: boolean;
  rom: boolean;
  rw: boolean;
}

export function decodeFlags(entry: number, product: StreamProduct): Decoded {
  const phi2 = (entry & 0x80000000) !== 0;
  const rw = (entry & 0x01000000) !== 0;
  const game = (entry & 0x40000000) === 0;
  const exrom = (entry & 0x20000000) === 0;
  const nmi = (entry & 0x02000000) === 0;
  if (product === 'u2plus') {
    // U2+ cart-slot vector: 28 cartridge ROM selected (active high), 27 BA, 26 IRQ#.
    const ba = (entry & 0x08000000) !== 0;
    const access = phi2 && !rw ? 'write' : phi2 && ba && rw ? 'read' : 'vic';
    return { access, phi2, ba, irq: (entry & 0x04000000) === 0, nmi, game, exrom, rom: (entry & 0x10000000) !== 0, rw };
  }
  // U64 (documentation table): 28 BA, 27 IRQ#, 26 ROM#.
  const flags = entry >>> 24;
  const access = (flags & 0x91) === 0x91 ? 'read' : (flags & 0x81) === 0x80 ? 'write' : 'vic';
  return {
    access,
    phi2,
    ba: (entry & 0x10000000) !== 0,
    irq: (entry & 0x08000000) === 0,
    nmi,
    game,
    exrom,
    rom: (entry & 0x04000000) === 0,
    rw,
  };
}

/** An index record's place in the stream: in-order full datagrams only (others cannot be placed in time). */
function placeable(marks: number, length: number, datagramBytes: number): boolean {
  return (marks & 0x80000000) === 0 && length === datagramBytes;
}

/**
 * Stream slots from the index records: a datagram's slot is how many datagrams the device sent
 * before it, counting those lost (by sequence). Returns, for each ordinal asked, the count of slots
 * before that record (`before`) and the record's own slot (-1 when it cannot be placed).
 */
async function streamSlots(
  index: FileHandle,
  ordinals: number[],
  datagramBytes: number,
): Promise<Map<number, { before: number; slot: number }>> {
  const out = new Map<number, { before: number; slot: number }>();
  const upTo = Math.max(...ordinals);
  const CHUNK = 4096;
  const buf = Buffer.alloc(CHUNK * INDEX_RECORD_BYTES);
  let acc = 0;
  for (let first = 0; first <= upTo; first += CHUNK) {
    const n = Math.min(CHUNK, upTo + 1 - first);
    await index.read(buf, 0, n * INDEX_RECORD_BYTES, INDEX_HEADER_BYTES + first * INDEX_RECORD_BYTES);
    for (let i = 0; i < n; i++) {
      const r = i * INDEX_RECORD_BYTES;
      const marks = buf.readUInt32LE(r + 12);
      const ok = placeable(marks, buf.readUInt16LE(r + 10), datagramBytes);
      const slot = ok ? acc + (marks & 0x7fffffff) : -1;
      if (ordinals.includes(first + i)) out.set(first + i, { before: acc, slot });
      if (ok) acc = slot + 1;
    }
  }
  return out;
}

export async function readTimelinePage(evidence: TimelineEvidence, query: TimelineQuery): Promise<TimelinePage> {
  const { limit, addressFrom, addressTo } = validate(query);
  const start = query.cursor === undefined ? { ordinal: 0, entry: 0 } : parseCursor(query.cursor);

  const indexSha = await hashFile(evidence.indexPath);
  if (indexSha !== evidence.indexSha256)
    throw new TimelineError(
      'index-checksum-mismatch',
      `the timeline index no longer matches its registered SHA-256 (${evidence.indexSha256.slice(0, 12)}…): evidence was altered`,
    );

  const index = await openEvidenceFile(evidence.indexPath);
  const capture = await openEvidenceFile(evidence.capturePath);
  try {
    const head = Buffer.alloc(INDEX_HEADER_BYTES);
    await index.read(head, 0, INDEX_HEADER_BYTES, 0);
    if (head.toString('latin1', 0, 8) !== INDEX_MAGIC || head.readUInt32LE(8) !== INDEX_VERSION)
      throw new TimelineError('index-malformed', 'the timeline index has an unknown magic or version');
    const total = head.readUInt32LE(12);
    const perBlock = head.readUInt32LE(16);
    const datagramBytes = head.readUInt32LE(20);
    if (perBlock < 1) throw new TimelineError('index-malformed', 'the timeline index has zero records per block');
    const blocksAt = INDEX_HEADER_BYTES + total * INDEX_RECORD_BYTES;
    const mode = evidence.debugInfo ? 'source_linked' : 'bus_only';

    if (total === 0) {
      if (start.ordinal !== 0 || start.entry !== 0)
        throw new TimelineError('invalid-cursor', `cursor ${query.cursor} is past the end: the capture has no datagrams`);
      return { mode, rows: [], next_cursor: null, scanned_datagrams: 0, total_datagrams: 0, cycle_origin: null, cycle_unit: null };
    }
    if (start.ordinal >= total)
      throw new TimelineError(
        'invalid-cursor',
        `cursor datagram ${start.ordinal} is past the end: the capture has ${total} datagrams (0..${total - 1})`,
      );

    // Two entries per clock in the VIC modes (so a datagram must hold an even number), one per CPU
    // bus cycle in "6510 Only".
    const entriesPer = Math.max(0, Math.floor((datagramBytes - DATAGRAM_HEADER_BYTES) / 4));
    const cpuOnly = evidence.streamMode === '6510 Only';
    const perCycle = cpuOnly ? 1 : 2;
    const cycleUnit: TimelinePage['cycle_unit'] =
      entriesPer > 0 && entriesPer % perCycle === 0 ? (cpuOnly ? 'cpu_bus_cycle' : 'clock') : null;
    /** A datagram's entries line up with cycles: any in "6510 Only", a VIC half first otherwise. */
    const aligned = (firstEntry: number) => cpuOnly || (firstEntry & 0x80000000) === 0;
    const cycleAt = (slot: number, entry: number) => Math.floor((slot * entriesPer + entry) / perCycle);
    const ps = evidence.programStart;
    const psInCapture = ps !== undefined && ps !== null && ps.ordinal < total ? ps : null;
    const slots = await streamSlots(index, psInCapture ? [start.ordinal, psInCapture.ordinal] : [start.ordinal], datagramBytes);
    let acc = slots.get(start.ordinal)?.before ?? 0;
    let cycleOrigin: TimelinePage['cycle_origin'] = cycleUnit ? 'capture_start' : null;
    let originClock = 0;
    if (cycleOrigin && psInCapture) {
      const slot = slots.get(psInCapture.ordinal)?.slot ?? -1;
      if (slot >= 0 && aligned(await firstEntryOf(index, capture, psInCapture.ordinal))) {
        cycleOrigin = 'program_start';
        originClock = cycleAt(slot, psInCapture.entry);
      } else cycleOrigin = null; // the program's start cannot be placed in time: no cycle is exact
    }
    const beforeStart = (o: number, e: number): boolean | undefined =>
      ps === undefined ? undefined : ps === null ? true : o < ps.ordinal || (o === ps.ordinal && e < ps.entry);

    const rows: TimelineRow[] = [];
    let scanned = 0;
    let ordinal = start.ordinal;
    let entry = start.entry;
    let first = true;
    let nextCursor: string | null = null;

    outer: while (ordinal < total && scanned < MAX_SCAN_DATAGRAMS) {
      // Load and verify the block holding `ordinal`.
      const blockNo = Math.floor(ordinal / perBlock);
      const {
        first: blockFirst,
        count: blockCount,
        recs,
        from,
        bytes,
      } = await readVerifiedBlock(index, capture, { total, perBlock, blocksAt }, blockNo);

      for (; ordinal < blockFirst + blockCount; ordinal++, entry = 0) {
        if (scanned >= MAX_SCAN_DATAGRAMS) break outer;
        scanned++;
        const r = (ordinal - blockFirst) * INDEX_RECORD_BYTES;
        const offset = Number(recs.readBigUInt64LE(r)) - from;
        const length = recs.readUInt16LE(r + 10);
        const marks = recs.readUInt32LE(r + 12);
        const outOfOrder = (marks & 0x80000000) !== 0;
        const missing = marks & 0x7fffffff;
        const entries = Math.max(0, Math.floor((length - DATAGRAM_HEADER_BYTES) / 4));
        let slot = -1;
        if (placeable(marks, length, datagramBytes)) {
          slot = acc + missing;
          acc = slot + 1;
        }
        if (first && entry >= Math.max(1, entries))
          throw new TimelineError('invalid-cursor', `cursor entry ${entry} is past the end of datagram ${ordinal} (${entries} entries)`);
        first = false;
        if (entry === 0 && missing > 0) {
          if (rows.length === limit) {
            nextCursor = `${ordinal}:0`;
            break outer;
          }
          rows.push({ kind: 'gap', cursor: `${ordinal}:0`, datagram_ordinal: ordinal, missing_datagrams: missing });
        }
        if (length !== datagramBytes || outOfOrder) {
          if (entry === 0) {
            if (rows.length === limit) {
              nextCursor = `${ordinal}:0`;
              break outer;
            }
            rows.push({
              kind: 'uncertain',
              cursor: `${ordinal}:0`,
              datagram_ordinal: ordinal,
              reason: outOfOrder ? 'out-of-order' : 'malformed-datagram',
              detail: outOfOrder
                ? `sequence ${recs.readUInt16LE(r + 8)} arrived after a later one: its cycles cannot be placed in time`
                : `${length} bytes where ${datagramBytes} were expected: its content is not a full bus-cycle datagram`,
            });
          }
          continue;
        }
        const base = offset + RECORD_HEADER_BYTES + DATAGRAM_HEADER_BYTES;
        // In a VIC mode, a datagram whose first entry is not a VIC half is not aligned on clocks: no cycles there.
        const clocked = cycleOrigin !== null && slot >= 0 && entries > 0 && aligned(bytes.readUInt32LE(base));
        for (; entry < entries; entry++) {
          const e = bytes.readUInt32LE(base + entry * 4);
          const address = e & 0xffff;
          if (address < addressFrom || address > addressTo) continue;
          const d = decodeFlags(e, evidence.product);
          if (query.access !== undefined && d.access !== query.access) continue;
          const before = beforeStart(ordinal, entry);
          const row: BusRow = {
            kind: 'bus',
            cursor: `${ordinal}:${entry}`,
            datagram_ordinal: ordinal,
            entry_index: entry,
            address,
            address_hex: addressHex(address),
            data: (e >>> 16) & 0xff,
            access: d.access,
            phi2: d.phi2,
            ba: d.ba,
            irq_asserted: d.irq,
            nmi_asserted: d.nmi,
            game_asserted: d.game,
            exrom_asserted: d.exrom,
            rom_line_asserted: d.rom,
            cycle: clocked ? cycleAt(slot, entry) - originClock : null,
            ...(before === undefined ? {} : { before_program_start: before }),
          };
          // Before the program's first instruction the bytes at an address were another program's.
          const io = hardwareAt(address);
          if (evidence.debugInfo && before === true) row.source = null;
          else if (io?.space === 'io') {
            // An I/O register is no line of the program, whatever label lies below it in the
            // debug info ($D7FF is not "@wait + 53201"): unmapped, with the register named, as
            // resolve_address answers (analysis/hardware-addresses.ts).
            if (evidence.debugInfo) row.source = null;
            row.hardware = { space: io.space, area: io.area, register: io.register, name: describeHardware(io) };
          } else if (evidence.debugInfo) {
            const s = evidence.debugInfo.resolve(address);
            row.source =
              s.location || s.symbol
                ? {
                    file: s.location?.file ?? '',
                    line: s.location?.line ?? 0,
                    symbol: s.symbol?.name ?? null,
                    symbol_offset: s.symbol ? address - s.symbol.address : null,
                  }
                : null;
          }
          if (query.keep && !query.keep(row)) continue;
          if (rows.length === limit) {
            nextCursor = `${ordinal}:${entry}`;
            break outer;
          }
          rows.push(row);
        }
      }
    }
    if (nextCursor === null && ordinal < total) nextCursor = `${ordinal}:${entry}`;
    return {
      mode,
      rows,
      next_cursor: nextCursor,
      scanned_datagrams: scanned,
      total_datagrams: total,
      cycle_origin: cycleOrigin,
      cycle_unit: cycleOrigin === null ? null : cycleUnit,
      ...(ps === undefined ? {} : { program_start: ps === null ? null : { cursor: `${ps.ordinal}:${ps.entry}` } }),
    };
  } finally {
    await Promise.all([index.close(), capture.close()]);
  }
}

/** Where a capture's index keeps its blocks: datagrams in all, datagrams per block, hashes' offset. */
export interface IndexLayout {
  total: number;
  perBlock: number;
  blocksAt: number;
}

/**
 * Block `blockNo` of a capture: its index records and its datagram bytes, re-hashed against the
 * index — a tampered capture is `capture-checksum-mismatch`, never read. Shared by timeline pages
 * and the program-start scan (program-start-scan.ts).
 */
export async function readVerifiedBlock(
  index: FileHandle,
  capture: FileHandle,
  layout: IndexLayout,
  blockNo: number,
): Promise<{ first: number; count: number; recs: Buffer; from: number; bytes: Buffer }> {
  const first = blockNo * layout.perBlock;
  const count = Math.min(layout.perBlock, layout.total - first);
  const recs = Buffer.alloc(count * INDEX_RECORD_BYTES);
  await index.read(recs, 0, recs.length, INDEX_HEADER_BYTES + first * INDEX_RECORD_BYTES);
  const expectedHash = Buffer.alloc(INDEX_BLOCK_HASH_BYTES);
  await index.read(expectedHash, 0, INDEX_BLOCK_HASH_BYTES, layout.blocksAt + blockNo * INDEX_BLOCK_HASH_BYTES);
  const from = Number(recs.readBigUInt64LE(0));
  const lastAt = (count - 1) * INDEX_RECORD_BYTES;
  const to = Number(recs.readBigUInt64LE(lastAt)) + RECORD_HEADER_BYTES + recs.readUInt16LE(lastAt + 10);
  const bytes = Buffer.alloc(to - from);
  const { bytesRead } = await capture.read(bytes, 0, bytes.length, from);
  if (bytesRead !== bytes.length || !createHash('sha256').update(bytes).digest().equals(expectedHash))
    throw new TimelineError(
      'capture-checksum-mismatch',
      `capture block ${blockNo} (datagrams ${first}..${first + count - 1}) no longer matches its registered SHA-256: evidence was altered`,
    );
  return { first, count, recs, from, bytes };
}
