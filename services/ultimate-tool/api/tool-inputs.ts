// The MCP tools' closed input schemas (the request half of each entry of tools.ts). Everything a
// request could get wrong is caught with them, before any HTTP request: the adapter never sends the
// service what it can already tell is malformed. Every field the service also checks extends the
// API's own field (fields.ts), so a limit here is the service's limit by construction
// (test/adapters/ultimate/limits.test.ts). They differ from the routes' own request schemas where a
// tool is a friendlier door to the same route: numbers instead of query text, UUIDs in either
// case, `baseline_run_id` for the query's `baseline`, the checkpoint matrix checked up front.
import { z } from 'zod';
import { parseAddress } from './address.js';
import {
  DIAGNOSTIC_SECTIONS,
  HOST,
  MAX_RUNS_MAX,
  NativeProgramName,
  CHECKPOINT_COMPARISONS_LIMIT_MAX,
  ConfirmedCount,
  Context,
  DIAGNOSTIC_LIMIT_MAX as API_DIAGNOSTIC_LIMIT_MAX,
  DiagnosticCursor,
  EvidenceName,
  ID_MAX,
  IPV4,
  JobId,
  ProbeId,
  REPEAT_MAX,
  Repeat,
  RUNS_LIMIT_MAX,
  RunsCursor,
  TestName,
  TIMELINE_LIMIT_MAX as API_TIMELINE_LIMIT_MAX,
  TimelineCursor,
  UUID_V4_ANY_CASE,
} from './fields.js';
import { TargetNameSchema as TargetSchema } from './schemas.js';

// Spelled out in both cases (not the i flag), so the JSON Schema pattern clients see says the same.
const UUID = UUID_V4_ANY_CASE;

/** A run or comparison id: a UUID (any case on input, lowercase on the wire, as the service writes them). */
export const uuidField = (what: string) =>
  z
    .string()
    .regex(UUID, `${what} must be a UUID like 123e4567-e89b-42d3-a456-426614174000`)
    .transform((s) => s.toLowerCase());

/** Job and probe ids are opaque, but always one safe path segment. */
const OPAQUE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const opaqueId = (what: string, field: typeof ProbeId | typeof JobId) =>
  field.regex(OPAQUE_ID, `${what} must be 1-${ID_MAX} characters of [A-Za-z0-9_.-]`);

function hasControlCharacter(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) < 0x20 || s.charCodeAt(i) === 0x7f) return true;
  return false;
}

/** An exact context name (a label scope/section the run's symbol files define). */
const contextField = Context.refine((s) => !hasControlCharacter(s), { message: 'context must not contain control characters' })
  .optional()
  .describe('a scope, segment or file name of the run’s symbols');

/** A registered evidence file name: a plain name, never a path. */
const evidenceName = EvidenceName.refine((s) => s !== '.' && s !== '..' && !/[/\\]/.test(s) && !hasControlCharacter(s), {
  message: 'name must be a registered evidence file name, not a path (no "/", "\\", "..", control characters)',
});

export const NoArgs = z.strictObject({});

export const ListRunsArgs = z.strictObject({
  limit: z.number().int().min(1).max(RUNS_LIMIT_MAX).optional().describe('default 20'),
  cursor: RunsCursor.optional().describe('next_cursor of the previous page'),
  test: TestName.optional(),
  target: TargetSchema.optional(),
});

export const GetRunArgs = z.strictObject({ run_id: uuidField('run_id') });

export const GetJobArgs = z.strictObject({
  job_id: opaqueId('job_id', JobId).refine((s) => s !== 'active', { message: 'job_id "active" is reserved; use get_active_job' }),
});

export const ProbeArgs = z.strictObject({
  strict_gate: z.boolean().optional().describe('a strict probe, needed by a strict_gate job'),
});

/** The largest `repeat` (the service's bound; a typo cannot queue a million runs). */
export const MAX_REPEAT = REPEAT_MAX;

export const StartSuiteJobArgs = z.strictObject({
  tests: z.array(TestName).min(1).max(1024).optional().describe('test names from get_project, in order; default: every test'),
  targets: z
    .array(TargetSchema)
    .min(1)
    .max(2)
    .refine((t) => new Set(t).size === t.length, { message: 'targets must not repeat' }),
  repeat: Repeat.optional().describe('runs per test and target, default 1'),
  strict_gate: z.boolean().optional(),
  probe_id: opaqueId('probe_id', ProbeId).optional().describe('from probe_ultimate; required for the ultimate target'),
  confirmed_reset_count: ConfirmedCount.optional().describe('with the ultimate target: tests × repeat'),
  confirmed_reu_write_count: ConfirmedCount.optional(),
});

export const StartTestJobArgs = z
  .strictObject({
    test: TestName.describe('a test name from get_project'),
    targets: z
      .array(TargetSchema)
      .min(1)
      .max(2)
      .refine((t) => new Set(t).size === t.length, { message: 'targets must not repeat' }),
    repeat: Repeat.optional().describe('runs per target, default 1'),
    baseline_run_id: uuidField('baseline_run_id').optional(),
    strict_gate: z.boolean().optional(),
    probe_id: opaqueId('probe_id', ProbeId).optional().describe('from probe_ultimate; required for the ultimate target'),
    confirmed_reset_count: ConfirmedCount.optional(),
    confirmed_reu_write_count: ConfirmedCount.optional(),
    compare_checkpoints: z
      .boolean()
      .optional()
      .describe('the VICE-then-Ultimate memory-checkpoint matrix: targets [vice, ultimate], repeat 1'),
  })
  .superRefine((a, ctx) => {
    // The matrix shape is checked here too, so a request the service would refuse is never sent.
    if (!a.compare_checkpoints) return;
    if (a.targets.length !== 2 || a.targets[0] !== 'vice' || a.targets[1] !== 'ultimate')
      ctx.addIssue({
        code: 'custom',
        path: ['targets'],
        message: 'compare_checkpoints needs targets exactly ["vice","ultimate"] in that order',
      });
    if ((a.repeat ?? 1) !== 1) ctx.addIssue({ code: 'custom', path: ['repeat'], message: 'compare_checkpoints needs repeat 1' });
  });

export const ReadEvidenceArgs = z.strictObject({
  run_id: uuidField('run_id'),
  name: evidenceName.describe('a name from the run record’s evidence list'),
});

export const CompareRunsArgs = z.strictObject({
  baseline_run_id: uuidField('baseline_run_id'),
  candidate_run_id: uuidField('candidate_run_id'),
  context: contextField,
});

export const ResolveAddressArgs = z.strictObject({
  run_id: uuidField('run_id'),
  address: z
    .union([z.string(), z.number().int()])
    .superRefine((value, ctx) => {
      const parsed = parseAddress(value);
      if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.message });
    })
    .describe('0-65535 as decimal, $ABCD or 0xABCD'),
  context: contextField,
});

export const CompareRunCheckpointsArgs = z.strictObject({
  baseline_run_id: uuidField('baseline_run_id'),
  candidate_run_id: uuidField('candidate_run_id'),
});

export const ListCheckpointComparisonsArgs = z.strictObject({
  limit: z.number().int().min(1).max(CHECKPOINT_COMPARISONS_LIMIT_MAX).optional().describe('default 50'),
});

export const GetCheckpointComparisonArgs = z.strictObject({ comparison_id: uuidField('comparison_id') });
// ---- debug-stream captures and run analyses (docs/ultimate/CAPTURES.md) ----

/** The timeline's page bound (docs/ultimate/TIMELINE.md). */
export const TIMELINE_LIMIT_MAX = API_TIMELINE_LIMIT_MAX;
export const DIAGNOSTIC_LIMIT_MAX = API_DIAGNOSTIC_LIMIT_MAX;
export { DIAGNOSTIC_SECTIONS };

const addressField = (what: string) =>
  z
    .union([z.string(), z.number().int()])
    .superRefine((value, ctx) => {
      const parsed = parseAddress(value);
      if (!parsed.ok) ctx.addIssue({ code: 'custom', message: `${what}: ${parsed.message}` });
    })
    .optional()
    .describe('0-65535 as decimal, $ABCD or 0xABCD; inclusive');

export const GetRunTimelineArgs = z
  .strictObject({
    run_id: uuidField('run_id'),
    cursor: TimelineCursor.regex(
      /^\d{1,10}:\d{1,4}$/,
      'cursor must be DATAGRAM_ORDINAL:ENTRY_INDEX, e.g. "0:0" (next_cursor of the previous page)',
    ).optional(),
    limit: z.number().int().min(1).max(TIMELINE_LIMIT_MAX).optional().describe('rows per page, default 256'),
    address_from: addressField('address_from'),
    address_to: addressField('address_to'),
    access: z.enum(['read', 'write']).optional(),
    context: contextField,
  })
  .superRefine((a, ctx) => {
    const from = a.address_from === undefined ? undefined : parseAddress(a.address_from);
    const to = a.address_to === undefined ? undefined : parseAddress(a.address_to);
    if (from?.ok && to?.ok && from.address > to.address)
      ctx.addIssue({ code: 'custom', path: ['address_from'], message: 'address_from must not be above address_to' });
  });

export const GetDiagnosticReportArgs = z.strictObject({ run_id: uuidField('run_id') });

export const GetDiagnosticItemsArgs = z.strictObject({
  run_id: uuidField('run_id'),
  section: z.enum(DIAGNOSTIC_SECTIONS),
  limit: z.number().int().min(1).max(DIAGNOSTIC_LIMIT_MAX).optional().describe('default 50'),
  cursor: DiagnosticCursor.regex(
    /^[A-Za-z0-9_-]+$/,
    'cursor must be the opaque next_cursor of the previous page (base64url characters)',
  ).optional(),
});

export const GetCrashReportArgs = z.strictObject({ run_id: uuidField('run_id'), context: contextField });

const ipv4 = z
  .string()
  .regex(IPV4, 'receiver_ipv4 must be a dotted IPv4 address of this machine, e.g. 192.168.1.10')
  .describe('the IPv4 address of this machine’s interface the device streams to');

export const PrepareDebugStreamCaptureArgs = z.strictObject({
  probe_id: opaqueId('probe_id', ProbeId).describe('from probe_ultimate'),
  receiver_ipv4: ipv4,
  strict_gate: z.boolean().optional(),
});

export const PrepareSourceLinkedCaptureArgs = z.strictObject({
  probe_id: opaqueId('probe_id', ProbeId).describe('from probe_ultimate'),
  receiver_ipv4: ipv4,
  test: TestName.describe('the project test to run while capturing (currently timeline-probe)'),
  strict_gate: z.boolean().optional(),
});

export const CancelPreparationArgs = z.strictObject({ preparation_id: uuidField('preparation_id') });

/** A count the user confirmed; the service refuses any value but 1 before consuming the preparation. */
const exactlyOne = ConfirmedCount.describe('must be 1, as the user confirmed');

export const StartDebugStreamCaptureArgs = z.strictObject({
  preparation_id: uuidField('preparation_id'),
  confirmed_stream_start_count: exactlyOne,
  confirmed_stream_stop_count: exactlyOne,
});

export const StartSourceLinkedCaptureArgs = StartDebugStreamCaptureArgs.extend({
  confirmed_reset_count: exactlyOne,
});

// ---- the trusted-native flow (docs/ultimate/NATIVE.md) ----

const deviceHost = z
  .string()
  .min(1)
  .max(253)
  .regex(HOST, 'device_host must be a host name or address (the one the probe showed)')
  .describe('as the intent’s identity shows it');

export const CreateNativePreparationArgs = z.strictObject({
  program: NativeProgramName.regex(
    /^[a-z0-9][a-z0-9_-]*$/,
    'program must be a native program name from get_project (native_programs)',
  ).describe('a name from the manifest native_programs (see get_project)'),
});

export const CreateNativeIntentArgs = z
  .strictObject({
    preparation_id: uuidField('preparation_id'),
    probe_id: ProbeId.regex(OPAQUE_ID, 'probe_id must be the id probe_ultimate returned').describe('from probe_ultimate; consumed'),
    mode: z.enum(['one-shot', 'standing']),
    confirmed_standing_authorization: z.boolean().optional().describe('required true for mode standing'),
    expires_at: z.iso.datetime({ offset: true }).optional().describe('standing: ISO-8601 expiry'),
    max_runs: z.number().int().min(1).max(MAX_RUNS_MAX).optional().describe('standing: the most runs it allows'),
  })
  .superRefine((r, ctx) => {
    if (r.mode === 'standing' && r.confirmed_standing_authorization !== true)
      ctx.addIssue({
        code: 'custom',
        path: ['confirmed_standing_authorization'],
        message: 'a standing intent needs confirmed_standing_authorization: true',
      });
    if (r.mode === 'one-shot' && (r.max_runs !== undefined || r.confirmed_standing_authorization !== undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['mode'],
        message: 'max_runs and confirmed_standing_authorization apply only to mode standing',
      });
  });

export const IntentIdArgs = z.strictObject({ intent_id: uuidField('intent_id') });

export const StartNativeRunArgs = z.strictObject({ intent_id: uuidField('intent_id'), device_host: deviceHost });

export const StartNativeHealthCheckArgs = z.strictObject({
  intent_id: uuidField('intent_id'),
  run_id: uuidField('run_id').describe('the native_run_id of the intent’s latest run'),
  device_host: deviceHost,
});

export const StartRiscvSmokeJobArgs = z.strictObject({
  probe_id: ProbeId.regex(OPAQUE_ID, 'probe_id must be the id probe_ultimate returned'),
  device_host: deviceHost,
  confirmed_run_update_count: z.literal(1).describe('must be 1 (one Run Update)'),
});
