// The parts of the /v13 payloads the dashboard reads (docs/ultimate/SERVICE-API.md). Everything
// else is shown as the API sent it.
export interface RunSummary {
  run_id: string;
  job_id: string;
  test: string;
  target: string;
  status: string;
  emulation: boolean;
  started_at: string;
  finished_at: string;
}

export interface EvidenceEntry {
  name: string;
  media_type: string;
  size: number;
  sha256: string;
}

export interface RunRecord extends RunSummary {
  status_reason: string;
  target_identity: Record<string, unknown>;
  candidate: { artifact_sha256: string | null; artifact_name: string; build: Record<string, unknown> };
  timings: Record<string, number>;
  expectations: Record<string, unknown>;
  observations: Record<string, unknown>;
  screen_match: Record<string, unknown> | null;
  supporting_artifacts: Array<{ role: string; format: string; name: string; size: number; sha256: string }>;
  evidence: EvidenceEntry[];
  crash_state: Record<string, unknown> | null;
  comparison: Record<string, unknown> | null;
}

export interface EvidenceRead extends EvidenceEntry {
  kind: 'text' | 'image' | 'binary';
  text?: string;
  base64?: string;
}

export interface Job {
  job_id: string;
  state: string;
  test: string;
  targets: string[];
  repeat: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  progress: { completed_runs: number; total_runs: number; phase: string };
  run_ids: string[];
  error: { code: string; message: string } | null;
}

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
  source?: { file: string; line: number; symbol: string | null } | null;
}

export interface TimelinePage {
  mode: string;
  rows: TimelineRow[];
  next_cursor: string | null;
  scanned_datagrams: number;
  total_datagrams: number;
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
