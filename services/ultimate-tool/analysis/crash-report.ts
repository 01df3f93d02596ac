// The crash report (crash_analysis_schema_version 2) of a crashed run, built only from what the
// run registered: the harness crash hand-off (`harness-crash-area-v1`: "CR", kind, A, X, Y, P, SP,
// PC lo, PC hi) or a crash the target saw in the bus trace without the program's cooperation
// (`bus-trace-v1`: the same layout, kind 1 BRK / 3 JAM / 4 outside the code ranges, PC = the
// faulting opcode's address), the stack from SP+1 to $01FF, the zero page, the selected globals, and the
// program image (to check that a stack word really is a JSR return address). Addresses resolve
// against the run's own snapshotted labels through the injected resolver; `resolved`, `ambiguous`,
// `unmapped` and `unavailable` are all successful resolutions. Anything malformed or altered is a
// CrashAnalysisError (wire code `crash_analysis_failed`).
import { EvidenceIntegrityError, type EvidenceBytesReader, type RegisteredFile, readVerified } from './registered-evidence.js';
import { addressHex } from '../api/address.js';

export const CRASH_ANALYSIS_SCHEMA_VERSION = 2;
const JSR = 0x20;

export type CrashAnalysisFailure = 'not-crashed' | 'no-crash-context' | 'malformed-context' | 'evidence-integrity';

export class CrashAnalysisError extends Error {
  override readonly name = 'CrashAnalysisError';
  readonly code = 'crash_analysis_failed';
  constructor(
    readonly reason: CrashAnalysisFailure,
    message: string,
  ) {
    super(message);
  }
}

/** A resolver result (schema 2) as the service's resolver produces it. */
export type Resolution = { resolver_schema_version: 2; result: 'resolved' | 'ambiguous' | 'unmapped' | 'unavailable' } & Record<
  string,
  unknown
>;

export interface CrashReportInput {
  run: {
    run_id: string;
    status: string;
    crash_state: {
      handoff: string;
      evidence: { context: string; stack: string; zero_page: string; globals: string | null };
    } | null;
    evidence: readonly RegisteredFile[];
  };
  readEvidence: EvidenceBytesReader;
  /** The run's program as a PRG (2-byte load address + bytes), for JSR checks; null when not registered. */
  programPrg: Uint8Array | null;
  resolve: (address: number) => Resolution;
}

const hex8 = (n: number) => `$${n.toString(16).toUpperCase().padStart(2, '0')}`;

function programByte(prg: Uint8Array | null, address: number): number | null {
  if (!prg || prg.length < 3) return null;
  const load = (prg[0] ?? 0) | ((prg[1] ?? 0) << 8);
  const at = address - load + 2;
  return at >= 2 && at < prg.length ? (prg[at] ?? null) : null;
}

export async function buildCrashReport(input: CrashReportInput): Promise<Record<string, unknown>> {
  const { run } = input;
  if (run.status !== 'crashed')
    throw new CrashAnalysisError('not-crashed', `run ${run.run_id} has status ${run.status}; a crash report needs a crashed run`);
  const state = run.crash_state;
  if (!state)
    throw new CrashAnalysisError(
      'no-crash-context',
      `run ${run.run_id} crashed without a crash hand-off (for example a CPU jam), so there is no context to analyse`,
    );
  if (state.handoff !== 'harness-crash-area-v1' && state.handoff !== 'bus-trace-v1' && state.handoff !== 'dma-crash-hook-v1')
    throw new CrashAnalysisError(
      'malformed-context',
      `unknown crash hand-off ${JSON.stringify(state.handoff)}; expected harness-crash-area-v1, bus-trace-v1 or dma-crash-hook-v1`,
    );
  // The bus trace and the DMA-installed hook record the same layout: PC = the faulting opcode's own address.
  const fromTrace = state.handoff === 'bus-trace-v1' || state.handoff === 'dma-crash-hook-v1';
  const seenBy = state.handoff === 'dma-crash-hook-v1' ? 'caught by the crash hook installed by DMA' : 'seen in the bus trace';

  let context: Buffer;
  let stack: Buffer;
  let zeroPage: Buffer;
  let globals: unknown = null;
  try {
    context = await readVerified(run.evidence, input.readEvidence, state.evidence.context);
    stack = await readVerified(run.evidence, input.readEvidence, state.evidence.stack);
    zeroPage = await readVerified(run.evidence, input.readEvidence, state.evidence.zero_page);
    if (state.evidence.globals) {
      const text = (await readVerified(run.evidence, input.readEvidence, state.evidence.globals)).toString('utf8');
      try {
        globals = JSON.parse(text);
      } catch {
        throw new CrashAnalysisError('malformed-context', `${state.evidence.globals} is not valid JSON`);
      }
    }
  } catch (err) {
    if (err instanceof EvidenceIntegrityError) throw new CrashAnalysisError('evidence-integrity', err.message);
    throw err;
  }
  if (context.length < 10 || context[0] !== 0x43 || context[1] !== 0x52)
    throw new CrashAnalysisError(
      'malformed-context',
      `${state.evidence.context} does not start with the "CR" marker of the harness crash area (${context.length} bytes)`,
    );
  if (zeroPage.length !== 256)
    throw new CrashAnalysisError('malformed-context', `${state.evidence.zero_page} is ${zeroPage.length} bytes; the zero page is 256`);
  const kindByte = context[2] ?? 0;
  const kind = fromTrace
    ? kindByte === 1
      ? 'brk'
      : kindByte === 3
        ? 'jam'
        : kindByte === 4
          ? 'outside-code'
          : null
    : kindByte === 1
      ? 'brk'
      : kindByte === 2
        ? 'nmi'
        : null;
  if (!kind)
    throw new CrashAnalysisError(
      'malformed-context',
      fromTrace
        ? `crash kind byte ${hex8(kindByte)} is not 1 (BRK), 3 (JAM) or 4 (outside the code ranges)`
        : `crash kind byte ${hex8(kindByte)} is neither 1 (BRK) nor 2 (NMI)`,
    );
  const [a = 0, x = 0, y = 0, p = 0, sp = 0, pcLo = 0, pcHi = 0] = context.subarray(3, 10);
  const pushedPc = pcLo | (pcHi << 8);
  if (stack.length !== 0xff - sp && !(sp === 0xff && stack.length === 1))
    throw new CrashAnalysisError(
      'malformed-context',
      `${state.evidence.stack} has ${stack.length} bytes, but SP ${hex8(sp)} implies ${0xff - sp}`,
    );

  // BRK pushes the address of its opcode + 2: the site is exact. An NMI's pushed PC is only the
  // next instruction it would have run.
  // From the bus trace the PC is the faulting opcode's own address.
  const siteAddress = fromTrace ? pushedPc : kind === 'brk' ? (pushedPc - 2) & 0xffff : pushedPc;
  const siteOpcode = programByte(input.programPrg, siteAddress);
  const site = {
    address: siteAddress,
    address_hex: addressHex(siteAddress),
    exact: fromTrace || kind === 'brk',
    note: fromTrace
      ? `the ${kind === 'brk' ? 'BRK' : kind === 'jam' ? 'JAM' : 'first'} opcode${kind === 'outside-code' ? ' outside the code ranges' : ''}, ${seenBy}`
      : kind === 'brk'
        ? 'the BRK opcode (pushed PC − 2)'
        : 'the instruction the NMI interrupted',
    opcode_in_program: siteOpcode === null ? null : hex8(siteOpcode),
    resolution: input.resolve(siteAddress),
  };

  // Every stack word whose address − 3 holds a JSR in the program is a candidate return address
  // (JSR pushes its own address + 2; RTS adds 1). Words that are not are listed as data.
  const candidates: Array<Record<string, unknown>> = [];
  for (let i = 0; i + 1 < stack.length; i++) {
    const word = (stack[i] ?? 0) | ((stack[i + 1] ?? 0) << 8);
    const returnTo = (word + 1) & 0xffff;
    const jsrAt = (returnTo - 3) & 0xffff;
    if (programByte(input.programPrg, jsrAt) !== JSR) continue;
    const target = (programByte(input.programPrg, jsrAt + 1) ?? 0) | ((programByte(input.programPrg, jsrAt + 2) ?? 0) << 8);
    candidates.push({
      stack_address: addressHex(0x0100 + ((sp + 1 + i) & 0xff)),
      return_address: returnTo,
      return_address_hex: addressHex(returnTo),
      call_site_hex: addressHex(jsrAt),
      called_hex: addressHex(target),
      resolution: input.resolve(jsrAt),
      called_resolution: input.resolve(target),
    });
  }

  return {
    crash_analysis_schema_version: CRASH_ANALYSIS_SCHEMA_VERSION,
    run_id: run.run_id,
    handoff: state.handoff,
    kind,
    registers: {
      a,
      x,
      y,
      p,
      sp,
      pc: pushedPc,
      a_hex: hex8(a),
      x_hex: hex8(x),
      y_hex: hex8(y),
      p_hex: hex8(p),
      sp_hex: hex8(sp),
      pc_hex: addressHex(pushedPc),
    },
    flags: { n: !!(p & 0x80), v: !!(p & 0x40), b: !!(p & 0x10), d: !!(p & 0x08), i: !!(p & 0x04), z: !!(p & 0x02), c: !!(p & 0x01) },
    site,
    stack: { from_hex: addressHex(0x0100 + ((sp + 1) & 0xff)), bytes_hex: stack.toString('hex'), candidate_return_addresses: candidates },
    zero_page: { bytes_hex: zeroPage.toString('hex') },
    globals,
    evidence_verified: [
      state.evidence.context,
      state.evidence.stack,
      state.evidence.zero_page,
      ...(state.evidence.globals ? [state.evidence.globals] : []),
    ],
  };
}
