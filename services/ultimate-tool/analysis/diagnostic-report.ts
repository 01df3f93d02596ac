// The diagnostic report (diagnostic_report_schema_version 1) of one immutable run, and its items
// paged by section. Everything comes from the run record and its registered evidence, every file
// of which is re-hashed first: a report never describes evidence that no longer matches.
//
// `status` is `finalized` when every part of the report is final, `provisional` when it contains a
// part whose contract is provisional (memory-checkpoint comparisons are, by the contract) or a
// comparison that could not be made. Integrity or section failures are DiagnosticReportError
// (wire code `diagnostic_report_failed`).
import { createHash } from 'node:crypto';
import { DIAGNOSTIC_SECTIONS } from '../api/fields.js';
import type { EvidenceBytesReader, RegisteredFile } from './registered-evidence.js';

export { DIAGNOSTIC_SECTIONS };

export const DIAGNOSTIC_REPORT_SCHEMA_VERSION = 1;
export type DiagnosticSection = (typeof DIAGNOSTIC_SECTIONS)[number];
export const ITEMS_LIMIT_DEFAULT = 50;
export const ITEMS_LIMIT_MAX = 100;

export class DiagnosticReportError extends Error {
  override readonly name = 'DiagnosticReportError';
  readonly code = 'diagnostic_report_failed';
  constructor(
    readonly reason: 'evidence-integrity' | 'unknown-section' | 'invalid-cursor' | 'invalid-limit',
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** The run-record fields the report reads (run record schema 9). */
export interface DiagnosableRun {
  run_id: string;
  test: string;
  target: string;
  status: string;
  status_reason?: string;
  emulation?: boolean;
  candidate: { artifact_sha256: string | null; artifact_name: string; build?: Record<string, unknown> };
  timings: Record<string, number>;
  expectations: Record<string, unknown>;
  observations: Record<string, unknown>;
  screen_match: { text: string; matched: boolean; found_at: unknown } | null;
  supporting_artifacts: ReadonlyArray<{ role: string; format: string; name: string; size: number; sha256: string }>;
  evidence: readonly RegisteredFile[];
  comparison: Record<string, unknown> | null;
}

type Row = Record<string, unknown>;

function assertions(run: DiagnosableRun): Row[] {
  const rows: Row[] = [];
  const exp = run.expectations;
  const obs = run.observations;
  if (exp.debug_register !== null && exp.debug_register !== undefined) {
    rows.push({
      assertion: 'debug_register',
      expected: exp.debug_register,
      observed: obs.debug_register ?? null,
      passed: obs.debug_register === exp.debug_register,
    });
  }
  if (run.screen_match) {
    rows.push({
      assertion: 'screen_match',
      expected: run.screen_match.text,
      observed: run.screen_match.found_at,
      passed: run.screen_match.matched,
    });
  }
  const memory = Array.isArray(obs.memory) ? (obs.memory as Row[]) : [];
  for (const m of memory) {
    rows.push({
      assertion: 'memory',
      address_hex: m.address_hex ?? null,
      expected: m.expected ?? null,
      observed: m.actual ?? null,
      passed: m.matched === true,
    });
  }
  rows.push({
    assertion: 'status',
    expected: 'passed',
    observed: run.status,
    passed: run.status === 'passed',
    reason: run.status_reason ?? null,
  });
  return rows;
}

function budgetRows(run: DiagnosableRun): Row[] {
  const budget = run.expectations.budget as { time_ms?: number; cycles?: number } | undefined;
  if (!budget) return [];
  const rows: Row[] = [];
  if (typeof budget.time_ms === 'number') {
    const used = run.timings.execute_ms ?? null;
    rows.push({ budget: 'time_ms', limit: budget.time_ms, used, within: used === null ? null : used <= budget.time_ms });
  }
  if (typeof budget.cycles === 'number') {
    const used = typeof run.observations.cycles === 'number' ? run.observations.cycles : null;
    rows.push({
      budget: 'cycles',
      limit: budget.cycles,
      used,
      within: used === null ? null : used <= budget.cycles,
      note: used === null ? 'this target did not count cycles' : null,
    });
  }
  return rows;
}

function comparisonRows(run: DiagnosableRun, key: 'sections' | 'objects' | 'symbols'): Row[] {
  const c = run.comparison;
  const rows = c?.[key];
  return Array.isArray(rows) ? (rows as Row[]) : [];
}

function checkpointRows(run: DiagnosableRun): Row[] {
  const c = run.observations.checkpoints;
  return Array.isArray(c) ? (c as Row[]) : [];
}

function sectionRows(run: DiagnosableRun, section: DiagnosticSection): Row[] {
  switch (section) {
    case 'assertions':
      return assertions(run);
    case 'budget':
      return budgetRows(run);
    case 'checkpoints':
      return checkpointRows(run);
    case 'comparison_sections':
      return comparisonRows(run, 'sections');
    case 'comparison_objects':
      return comparisonRows(run, 'objects');
    case 'comparison_symbols':
      return comparisonRows(run, 'symbols');
  }
}

/**
 * Hashes a registered file without holding it in memory (a debug-stream capture at the default
 * bound of 90,000 datagrams is ~130 MB); when absent, files are read whole through the EvidenceBytesReader.
 */
export type EvidenceHasher = (name: string) => Promise<{ sha256: string; size: number }>;

async function integrity(run: DiagnosableRun, read: EvidenceBytesReader, hash?: EvidenceHasher): Promise<Row> {
  const files: Row[] = [];
  const bad: string[] = [];
  for (const e of run.evidence) {
    let actual: string | null = null;
    let size: number | null = null;
    try {
      if (hash) {
        ({ sha256: actual, size } = await hash(e.name));
      } else {
        const bytes = await read(e.name);
        actual = createHash('sha256').update(bytes).digest('hex');
        size = bytes.length;
      }
    } catch {
      // missing: reported below
    }
    const ok = actual === e.sha256 && size === e.size;
    if (!ok) bad.push(e.name);
    files.push({ name: e.name, sha256: e.sha256, size: e.size, verified: ok });
  }
  if (bad.length)
    throw new DiagnosticReportError('evidence-integrity', `evidence no longer matches its registered SHA-256: ${bad.join(', ')}`, {
      altered: bad,
    });
  return { verified: true, files };
}

export async function buildDiagnosticReport(
  run: DiagnosableRun,
  read: EvidenceBytesReader,
  hash?: EvidenceHasher,
): Promise<Record<string, unknown>> {
  const evidenceIntegrity = await integrity(run, read, hash);
  const counts = Object.fromEntries(DIAGNOSTIC_SECTIONS.map((s) => [s, sectionRows(run, s).length]));
  const assertionRows = assertions(run);
  const budget = budgetRows(run);
  const checkpoints = checkpointRows(run);
  const comparison = run.comparison;
  const provisional = checkpoints.length > 0 || (comparison !== null && comparison.result !== 'compared');
  return {
    diagnostic_report_schema_version: DIAGNOSTIC_REPORT_SCHEMA_VERSION,
    run_id: run.run_id,
    status: provisional ? 'provisional' : 'finalized',
    status_note: provisional
      ? checkpoints.length > 0
        ? 'contains memory checkpoints, whose comparison contract is provisional'
        : `the comparison is ${String(comparison?.result)}`
      : 'every part is final and every registered evidence file verified',
    test: run.test,
    target: run.target,
    emulation: run.emulation ?? null,
    run_status: run.status,
    run_status_reason: run.status_reason ?? null,
    expectations: run.expectations,
    results: assertionRows,
    artifact: {
      name: run.candidate.artifact_name,
      sha256: run.candidate.artifact_sha256,
      supporting: run.supporting_artifacts,
      build: run.candidate.build ?? null,
    },
    evidence_integrity: evidenceIntegrity,
    budget: budget.length ? { rows: budget.length, all_within: budget.every((b) => b.within !== false) } : null,
    comparison: comparison ? { result: comparison.result ?? null, baseline_run_id: comparison.baseline_run_id ?? null } : null,
    checkpoints: checkpoints.length ? { count: checkpoints.length } : null,
    section_row_counts: counts,
  };
}

/** Opaque cursor: the section and offset, so a cursor of one section is refused by another. */
function encodeCursor(runId: string, section: DiagnosticSection, offset: number): string {
  return Buffer.from(JSON.stringify([runId.slice(0, 8), section, offset])).toString('base64url');
}

function decodeCursor(runId: string, section: DiagnosticSection, cursor: string): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  if (
    !Array.isArray(parsed) ||
    parsed[0] !== runId.slice(0, 8) ||
    parsed[1] !== section ||
    !Number.isInteger(parsed[2]) ||
    (parsed[2] as number) < 0
  )
    throw new DiagnosticReportError(
      'invalid-cursor',
      `cursor ${JSON.stringify(cursor)} was not issued for section ${section} of run ${runId}`,
    );
  return parsed[2] as number;
}

export function isDiagnosticSection(s: string): s is DiagnosticSection {
  return (DIAGNOSTIC_SECTIONS as readonly string[]).includes(s);
}

export async function diagnosticItems(
  run: DiagnosableRun,
  read: EvidenceBytesReader,
  section: string,
  options: { limit?: number; cursor?: string; hash?: EvidenceHasher } = {},
): Promise<Record<string, unknown>> {
  if (!isDiagnosticSection(section))
    throw new DiagnosticReportError(
      'unknown-section',
      `section ${JSON.stringify(section)} is not one of ${DIAGNOSTIC_SECTIONS.join(', ')}`,
    );
  const limit = options.limit ?? ITEMS_LIMIT_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > ITEMS_LIMIT_MAX)
    throw new DiagnosticReportError('invalid-limit', `limit ${limit} is outside 1..${ITEMS_LIMIT_MAX}`);
  await integrity(run, read, options.hash);
  const rows = sectionRows(run, section);
  const offset = options.cursor === undefined ? 0 : decodeCursor(run.run_id, section, options.cursor);
  if (offset > rows.length) throw new DiagnosticReportError('invalid-cursor', `cursor points past the ${rows.length} rows of ${section}`);
  const page = rows.slice(offset, offset + limit);
  const next = offset + page.length < rows.length ? encodeCursor(run.run_id, section, offset + page.length) : null;
  return {
    diagnostic_report_schema_version: DIAGNOSTIC_REPORT_SCHEMA_VERSION,
    run_id: run.run_id,
    section,
    total: rows.length,
    items: page,
    next_cursor: next,
  };
}
