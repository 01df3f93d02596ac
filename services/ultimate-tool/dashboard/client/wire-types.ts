// The /v13 payloads the dashboard reads. The run, evidence and job shapes are the API's own
// (services/ultimate-tool/api/schemas.ts; type-only imports, nothing of zod reaches the browser
// bundle); the analysis pages below are read loosely, as the API declares them loose.
import type {
  EvidenceEntry as ApiEvidenceEntry,
  Job as ApiJob,
  RunRecord as ApiRunRecord,
  RunSummary as ApiRunSummary,
} from '../../api/schemas.js';

export type RunSummary = ApiRunSummary;
export type EvidenceEntry = ApiEvidenceEntry;
export type RunRecord = ApiRunRecord;

export interface EvidenceRead extends EvidenceEntry {
  kind: 'text' | 'image' | 'binary';
  text?: string;
  base64?: string;
}

export type Job = ApiJob;

export interface TimelineRow {
  kind: 'bus' | 'gap' | 'uncertain';
  cursor: string;
  datagram_ordinal: number;
  address_hex?: string;
  data?: number;
  access?: string;
  irq_asserted?: boolean;
  nmi_asserted?: boolean;
  missing_datagrams?: number;
  reason?: string;
  /** CPU clock from the page's cycle_origin; null when not exact. */
  cycle?: number | null;
  /** Present when the program's start is known. */
  before_program_start?: boolean;
  source?: { file: string; line: number; symbol: string | null } | null;
}

export interface TimelinePage {
  mode: string;
  rows: TimelineRow[];
  next_cursor: string | null;
  scanned_datagrams: number;
  total_datagrams: number;
  cycle_origin?: 'program_start' | 'capture_start' | null;
  cycle_unit?: 'clock' | 'cpu_bus_cycle' | null;
  program_start?: { cursor: string } | null;
}

export interface NativeIntent {
  intent_id: string;
  program: string;
  mode: string;
  state: string;
  state_reason: string | null;
  health_gate: string;
  identity: Record<string, unknown>;
  created_at: string;
  expires_at: string | null;
  max_runs: number | null;
  runs_started: number;
  last_run_id: string | null;
  runs?: Array<Record<string, unknown>>;
}
