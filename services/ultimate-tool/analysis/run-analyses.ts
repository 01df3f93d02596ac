// The analyses of one immutable run, served by the service: its bus-trace timeline, its diagnostic
// report and items, and its crash report. This file only wires the analysis cores
// (./timeline/, ./analysis/) to the service's store: which registered evidence feeds which core,
// how a run's own labels resolve crash addresses, and how each core's failure becomes a wire error.
import { join } from 'node:path';
import { CrashAnalysisError, type Resolution, buildCrashReport } from './crash-report.js';
import { EvidenceFileError, hashEvidenceFile, readEvidenceFile } from '../runs/evidence-file.js';
import { DiagnosticReportError, type EvidenceHasher, buildDiagnosticReport, diagnosticItems } from './diagnostic-report.js';
import { EvidenceIntegrityError, type EvidenceBytesReader, readVerified } from './registered-evidence.js';
import { addressHex, addressValue } from '../api/address.js';
import type { RunRecord } from '../api/schemas.js';
import { EVIDENCE_NAME } from '../runs/evidence.js';
import { ServiceError } from '../http/service-error.js';
import type { ServiceStore } from '../store/store.js';
import type { SymbolAnalysis, SymbolTable } from './symbol-analysis.js';
import { Ca65DebugInfo } from '../timeline/ca65-debug-info.js';
import { describeHardware, hardwareAt } from './hardware-addresses.js';
import { findProgramStart } from '../timeline/program-start-scan.js';
import {
  type ProgramStartCursor,
  type StreamProduct,
  TimelineError,
  type TimelineFailure,
  readTimelinePage,
} from '../timeline/timeline-page.js';
import { prgLoadRange } from '../targets/program-start.js';

/** Query values as they arrive on the wire (strings); the cores validate their meaning. */
export interface TimelineParams {
  cursor?: string;
  limit?: string;
  address_from?: string;
  address_to?: string;
  access?: string;
  context?: string;
}

/** Every timeline failure is `timeline_failed` (409, api/errors.ts); `details.reason` says which. */
function timelineFailed(reason: TimelineFailure | 'no-capture' | 'context-unknown', message: string): ServiceError {
  return new ServiceError('timeline_failed', message, 409, { reason });
}

/** Parsed debug info per run: runs are immutable, so a run's analysis never changes. */
const DEBUG_INFO_CACHE_MAX = 16;

export class RunAnalyses {
  readonly #debugInfo = new Map<string, Ca65DebugInfo>();
  /** Where each run's program started in its capture (undefined: the run has no PRG to look for). */
  readonly #programStart = new Map<string, ProgramStartCursor | null | undefined>();

  constructor(
    readonly store: ServiceStore,
    readonly symbols: SymbolAnalysis | null,
  ) {}

  /** Raw bytes of a registered evidence name (the cores verify size and SHA-256 themselves). */
  reader(run: RunRecord): EvidenceBytesReader {
    return async (name: string) => {
      if (!EVIDENCE_NAME.test(name) || !run.evidence.some((e) => e.name === name))
        throw new Error(`${name} is not registered in run ${run.run_id}`);
      return readEvidenceFile(join(this.store.runDir(run.run_id), name));
    };
  }

  /** SHA-256 and size of a registered file, streamed from disk (captures are large). */
  hasher(run: RunRecord): EvidenceHasher {
    return async (name: string) => {
      if (!EVIDENCE_NAME.test(name) || !run.evidence.some((e) => e.name === name))
        throw new Error(`${name} is not registered in run ${run.run_id}`);
      return hashEvidenceFile(join(this.store.runDir(run.run_id), name));
    };
  }

  // ---- timeline ----

  async timeline(run: RunRecord, q: TimelineParams): Promise<Record<string, unknown>> {
    // The request's own parameters first: a malformed request is refused as such, whatever the run holds.
    let limit: number | undefined;
    if (q.limit !== undefined) {
      if (!/^[0-9]{1,5}$/.test(q.limit))
        throw timelineFailed('invalid-limit', `limit ${JSON.stringify(q.limit)} is not an integer 1..4096`);
      limit = Number(q.limit);
    }
    const address = (name: string, v: string | undefined): number | undefined => {
      if (v === undefined) return undefined;
      const a = addressValue(v);
      if (a === undefined)
        throw timelineFailed('invalid-address-range', `${name} ${JSON.stringify(v)} is not decimal, $ABCD or 0xABCD within 0..65535`);
      return a;
    };
    const addressFrom = address('address_from', q.address_from);
    const addressTo = address('address_to', q.address_to);
    if (q.access !== undefined && q.access !== 'read' && q.access !== 'write')
      throw timelineFailed('invalid-access', `access ${JSON.stringify(q.access)} is not "read" or "write"`);

    const ds = run.observations.debug_stream as Record<string, unknown> | undefined;
    if (!ds || typeof ds.index !== 'string' || typeof ds.capture !== 'string')
      throw timelineFailed(
        'no-capture',
        `run ${run.run_id} carries no verified debug-stream capture; capture one with start_debug_stream_capture`,
      );
    const indexEntry = run.evidence.find((e) => e.name === ds.index);
    const captureEntry = run.evidence.find((e) => e.name === ds.capture);
    if (!indexEntry || !captureEntry) throw timelineFailed('no-capture', `run ${run.run_id} does not register its capture and index`);

    const debugInfo = await this.#runDebugInfo(run);
    if (q.context !== undefined && !debugInfo)
      throw timelineFailed('context-unknown', `context ${JSON.stringify(q.context)} needs a source-linked run; this run is bus_only`);
    const dir = this.store.runDir(run.run_id);
    const ctx = q.context;
    try {
      const evidence = {
        capturePath: join(dir, captureEntry.name),
        indexPath: join(dir, indexEntry.name),
        indexSha256: indexEntry.sha256,
        product: (ds.stream_product === 'u2plus' ? 'u2plus' : 'u64') as StreamProduct,
        ...(typeof ds.debug_stream_mode === 'string' ? { streamMode: ds.debug_stream_mode } : {}),
        ...(debugInfo ? { debugInfo } : {}),
      };
      const programStart = await this.#programStartOf(run, evidence);
      const page = await readTimelinePage(
        { ...evidence, ...(programStart === undefined ? {} : { programStart }) },
        {
          cursor: q.cursor,
          limit,
          addressFrom,
          addressTo,
          access: q.access as 'read' | 'write' | undefined,
          // An exact context narrows the source-linked rows to one source file or symbol, inside the
          // scan (so a page scans as far as it does for an address filter, not just `limit` rows).
          ...(ctx === undefined ? {} : { keep: (r) => r.source != null && (r.source.file === ctx || r.source.symbol === ctx) }),
        },
      );
      return {
        timeline_schema_version: 1,
        run_id: run.run_id,
        ...page,
        truncation: ds.truncation ?? null,
        capture: { datagrams: ds.datagrams ?? null, missing_datagrams: ds.missing_datagrams ?? null, stream_product: ds.stream_product },
        ...(q.context !== undefined ? { context: q.context } : {}),
        note: 'rows are bus accesses, not a disassembly: no instruction, call or return labels',
      };
    } catch (e) {
      if (e instanceof TimelineError) throw timelineFailed(e.reason, e.message);
      if (e instanceof EvidenceFileError)
        throw timelineFailed('capture-checksum-mismatch', `a registered capture file of run ${run.run_id} is not usable: ${e.message}`);
      if ((e as NodeJS.ErrnoException).code === 'ENOENT')
        throw timelineFailed('capture-checksum-mismatch', `a registered capture file of run ${run.run_id} is missing`);
      throw e;
    }
  }

  /** The cursor of the program's first instruction in the run's capture, found once per run. */
  async #programStartOf(
    run: RunRecord,
    evidence: { capturePath: string; indexPath: string; product: StreamProduct },
  ): Promise<ProgramStartCursor | null | undefined> {
    if (this.#programStart.has(run.run_id)) return this.#programStart.get(run.run_id);
    const prg = run.supporting_artifacts.find((s) => s.role === 'prg');
    let found: ProgramStartCursor | null | undefined;
    if (prg) {
      let bytes: Buffer;
      try {
        bytes = await readVerified(run.evidence, this.reader(run), prg.name);
      } catch (e) {
        throw timelineFailed('capture-checksum-mismatch', `the run's program ${prg.name} cannot be used: ${(e as Error).message}`);
      }
      const range = prgLoadRange(bytes);
      found = range ? await findProgramStart(evidence.capturePath, evidence.indexPath, range, evidence.product) : undefined;
    }
    if (this.#programStart.size >= DEBUG_INFO_CACHE_MAX) this.#programStart.delete(this.#programStart.keys().next().value as string);
    this.#programStart.set(run.run_id, found);
    return found;
  }

  async #runDebugInfo(run: RunRecord): Promise<Ca65DebugInfo | undefined> {
    const dbg = run.supporting_artifacts.find((s) => s.role === 'dbg');
    if (!dbg) return undefined;
    const cached = this.#debugInfo.get(run.run_id);
    if (cached) return cached;
    let info: Ca65DebugInfo;
    try {
      const bytes = await readVerified(run.evidence, this.reader(run), dbg.name);
      info = Ca65DebugInfo.parse(bytes.toString('utf8'));
    } catch (e) {
      throw timelineFailed(
        e instanceof EvidenceIntegrityError ? 'capture-checksum-mismatch' : 'index-malformed',
        `the run's own analysis ${dbg.name} cannot be used: ${(e as Error).message}`,
      );
    }
    if (this.#debugInfo.size >= DEBUG_INFO_CACHE_MAX) this.#debugInfo.delete(this.#debugInfo.keys().next().value as string);
    this.#debugInfo.set(run.run_id, info);
    return info;
  }

  // ---- diagnostic report ----

  async diagnosticReport(run: RunRecord): Promise<Record<string, unknown>> {
    try {
      return await buildDiagnosticReport(run, this.reader(run), this.hasher(run));
    } catch (e) {
      throw asDiagnosticError(e);
    }
  }

  async diagnosticItems(
    run: RunRecord,
    section: string,
    limitText: string | undefined,
    cursor: string | undefined,
  ): Promise<Record<string, unknown>> {
    let limit: number | undefined;
    if (limitText !== undefined) {
      if (!/^[0-9]{1,4}$/.test(limitText))
        throw new ServiceError('diagnostic_report_failed', `limit ${JSON.stringify(limitText)} is not an integer 1..100`, 409, {
          reason: 'invalid-limit',
        });
      limit = Number(limitText);
    }
    try {
      return await diagnosticItems(run, this.reader(run), section, { limit, cursor, hash: this.hasher(run) });
    } catch (e) {
      throw asDiagnosticError(e);
    }
  }

  // ---- crash report ----

  async crashReport(run: RunRecord, context: string | undefined): Promise<Record<string, unknown>> {
    const reader = this.reader(run);
    try {
      const prg = run.supporting_artifacts.find((s) => s.role === 'prg');
      const programPrg = prg ? await readVerified(run.evidence, reader, prg.name) : null;
      const resolve = await this.resolverFor(run, context);
      return await buildCrashReport({ run, readEvidence: reader, programPrg, resolve });
    } catch (e) {
      if (e instanceof CrashAnalysisError) throw new ServiceError('crash_analysis_failed', e.message, 409, { reason: e.reason });
      if (e instanceof EvidenceIntegrityError)
        throw new ServiceError('crash_analysis_failed', e.message, 409, { reason: 'evidence-integrity', evidence: e.evidenceName });
      throw e;
    }
  }

  /**
   * The service's symbol analysis over the run's own snapshotted labels and maps, each re-hashed
   * against the run record first: /resolve and the crash report both resolve through it.
   */
  async resolverFor(run: RunRecord, context: string | undefined): Promise<(address: number) => Resolution> {
    const sa = this.symbols;
    if (!sa)
      return (address) => ({
        resolver_schema_version: 2,
        result: 'unavailable',
        address,
        address_hex: addressHex(address),
        symbols: [],
        reason: 'label analysis is not wired into this service',
      });
    const tables: SymbolTable[] = [];
    for (const s of run.supporting_artifacts) {
      if (s.role !== 'labels' && s.role !== 'map') continue;
      const text = (await readVerified(run.evidence, this.reader(run), s.name)).toString('utf8');
      tables.push(sa.parseSymbolFile(s.format as Parameters<SymbolAnalysis['parseSymbolFile']>[0], text));
    }
    const debugInfo = await this.#resolverDebugInfo(run);
    return (address) => honestResolution({ ...sa.resolveAddress(tables, address, context) }, address, debugInfo);
  }

  /** The run's ld65 --dbgfile, when it has one (for source lines); a broken one is left out, not fatal here. */
  async #resolverDebugInfo(run: RunRecord): Promise<Ca65DebugInfo | undefined> {
    try {
      return await this.#runDebugInfo(run);
    } catch {
      return undefined;
    }
  }
}

/**
 * Two honesty rules over the label resolver's answer (docs/ultimate/SERVICE.md, "Honest analyses"): an address in I/O, ROM or vector
 * space that only the nearest RAM label below "describes" is `unmapped` (with the hardware named
 * when the table knows it); and with an ld65 --dbgfile, the source line that produced the byte
 * (file, line, the label scope it is in and the offset from it).
 */
export function honestResolution(r: Resolution, address: number, debugInfo: Ca65DebugInfo | undefined): Resolution {
  const hw = hardwareAt(address);
  let out: Resolution = r;
  if (hw) {
    const symbols = Array.isArray(r.symbols) ? (r.symbols as Array<{ offset?: number }>) : [];
    const inSegment = r.segment !== null && r.segment !== undefined;
    const onlyNearest = (r.result === 'resolved' || r.result === 'ambiguous') && !inSegment && symbols.every((s) => s.offset !== 0);
    out = {
      ...r,
      ...(onlyNearest
        ? {
            result: 'unmapped' as const,
            symbols: [],
            reason: `${addressHex(address)} is ${describeHardware(hw)} (${hw.space} space), not program memory; the nearest label below it does not describe it`,
          }
        : {}),
      hardware: { space: hw.space, area: hw.area, register: hw.register, name: describeHardware(hw) },
    };
  }
  if (debugInfo) {
    const src = debugInfo.resolve(address);
    out = {
      ...out,
      source: src.location
        ? {
            file: src.location.file,
            line: src.location.line,
            scope: src.symbol?.name ?? null,
            offset: src.symbol ? address - src.symbol.address : null,
          }
        : null,
    };
  }
  return out;
}

function asDiagnosticError(e: unknown): unknown {
  if (e instanceof DiagnosticReportError)
    return new ServiceError('diagnostic_report_failed', e.message, 409, {
      reason: e.reason,
      ...e.details,
    });
  return e;
}
