// LispexEvaluator: the whole pipeline for one run — source bytes → reader → normalizer → core IR
// → the chosen route (tree evaluator or bytecode VM) → Observation. Synchronous, in the calling
// thread; the worker host (host/) adds wall-clock limits and cancellation around it.

import { packageVersion } from '../../common/package-info.js';
import { makeControlPrimitives } from './control-primitives.js';
import type { Core } from './core-ir.js';
import { type FrontEndProgress, runFrontEnd } from './front-end.js';
import { DEFAULT_MESSAGES, LispexError, exitStatusOf, renderDiagnostic, type SourcePosition, type WarningCode } from './diagnostics.js';
import { Globals } from './globals.js';
import {
  DEFAULT_PROFILE_ID,
  EXHAUSTION_CODES,
  CALL_DEPTH_LIMIT,
  LANGUAGE_PROFILE,
  METER_ID,
  METER_MANIFEST_ID,
  Meter,
  ResourceExhausted,
  profileById,
} from './meter.js';
import type { IntrinsicName } from './normalizer.js';
import { PROJECTION_DEPTH_LIMIT } from './observation.js';
import type {
  DiagnosticPhase,
  DiagnosticRecord,
  Observation,
  ObservationStatus,
  ProjectedValue,
  ResourceLimits,
  ResourceOutcome,
  Route,
  ValueRecord,
} from './observation.js';
import { buildPrimitiveRegistry, type PrimitiveTable } from './primitives/registry.js';
import { writeValue } from './printer.js';
import { RunContext } from './run-context.js';
import { encodeSource, sha256Hex } from './source.js';
import { TreeMachine } from './tree/machine.js';
import {
  Bytevector,
  Char,
  Closure,
  Continuation,
  ErrorObject,
  Flonum,
  LString,
  LVector,
  MultipleValues,
  NIL,
  Pair,
  Primitive,
  Ratnum,
  Sym,
  type Value,
} from './values.js';
import { VmRoute } from './vm/route.js';
import type { RouteRunner } from './route-runner.js';
import { hostDataLimit, isHostStackOverflow } from './machine-errors.js';

export interface RunOptions {
  readonly route: Route;
  /** Text of one datum, bound to the global `input`. */
  readonly input?: string;
  /** Logical source id used in diagnostics (never a host path). Default `source`. */
  readonly sourceId?: string;
  /** Overrides the profile's limits (tests use small limits to exhaust each axis). */
  readonly limits?: ResourceLimits;
  /**
   * Tree route only: run procedure bodies as compiled closures (default) or every step on the
   * CEK machine. Both give the same observation, counters included; the parity test uses it.
   */
  readonly treeCompiledBodies?: boolean;
  /**
   * Bytes stdout may take once escaped as a JSON string (what a JSON transport actually sends:
   * `"` and `\\` take 2 bytes, control characters 2 or 6). An append past it is denied like an
   * append past the output-byte limit: the `output-limit` outcome. Unbounded when absent.
   */
  readonly stdoutJsonLimit?: number;
}

export type { RouteRunner } from './route-runner.js';

export const ENGINE_VERSION: string = packageVersion();

/** The primitive table shared by every run: L2's registry with the machine's control family. */
function buildPrimitives(): Map<string, Primitive> {
  const control = makeControlPrimitives();
  const controlFns: Record<string, Primitive['fn']> = {};
  for (const p of control.values()) controlFns[p.name] = p.fn;
  const registry = buildPrimitiveRegistry(controlFns as PrimitiveTable);
  const out = new Map<string, Primitive>();
  for (const [name, prim] of registry.byName) out.set(name, control.get(name) ?? prim);
  return out;
}

let primitivesCache: Map<string, Primitive> | null = null;
export function primitiveTable(): ReadonlyMap<string, Primitive> {
  if (primitivesCache === null) primitivesCache = buildPrimitives();
  return primitivesCache;
}

type Phase = 'reader' | 'normalizer' | 'runtime';

export class LispexEvaluator {
  private readonly primitives = primitiveTable();

  run(source: string | Uint8Array, opts: RunOptions): Observation {
    const started = performance.now();
    const bytes = typeof source === 'string' ? encodeSource(source) : source;
    const sourceId = opts.sourceId ?? 'source';
    const profile = profileById(DEFAULT_PROFILE_ID);
    const limits = opts.limits ?? profile.limits;
    const meter = new Meter(limits);
    const globals = new Globals(this.primitives);
    const ctx = new RunContext(meter, globals, opts.stdoutJsonLimit);
    const inputBytes = opts.input === undefined ? undefined : encodeSource(opts.input);

    let status: ObservationStatus = 'ok';
    let error: { code: string; phase: DiagnosticPhase; at: SourcePosition; message: string; irritants: Value[] } | null = null;
    let limitHit: ResourceOutcome['limit'];
    let lastValues: Value[] = [];
    let interactive = '';
    let forms = 0;
    /** 'runtime' once the front end is done; before that, progress.phase says where a fault was. */
    let phase: 'front-end' | 'runtime' = 'front-end';
    let runner: RouteRunner | null = null;
    let currentForm: Core | null = null;
    /** stdout length when the current form started (-1 between forms). */
    let formStart = -1;
    const progress: FrontEndProgress = { phase: 'reader', diagnosticSource: sourceId };
    const intrinsic = (name: IntrinsicName): Primitive => this.primitives.get(name)!;

    try {
      const { program, inputValue } = runFrontEnd(bytes, inputBytes, sourceId, meter, intrinsic, progress);
      forms = program.forms.length;
      phase = 'runtime';
      if (inputValue !== undefined) globals.define('input', inputValue);
      runner = opts.route === 'tree' ? new TreeMachine(ctx, opts.treeCompiledBodies ?? true) : new VmRoute(ctx, program, this.primitives);
      for (const form of program.forms) {
        currentForm = form;
        formStart = ctx.stdout().length;
        const v = runner.evalForm(form);
        lastValues = v instanceof MultipleValues ? v.values.slice() : [v];
        interactive += ctx.stdout().slice(formStart);
        formStart = -1;
        for (const x of lastValues) interactive += `${writeValue(x)}\n`;
      }
    } catch (thrown) {
      lastValues = [];
      const site = runner?.currentSite() ?? { line: 1, column: 1 };
      // V8's own data limits (BigInt size, string length, buffer size) are a catalog error.
      const e = hostDataLimit(thrown, site) ?? thrown;
      if (e instanceof ResourceExhausted) {
        status = 'resource';
        limitHit = e.axis;
        // Routes count machine transitions differently, so that exhaustion is blamed on the
        // top-level form (route-independent); every other axis has a route-independent site.
        const at = e.axis === 'machine-transition' && currentForm !== null ? currentForm.span : (e.at ?? site);
        error = { code: EXHAUSTION_CODES[e.axis], phase: 'resource', at, message: `${e.axis} limit exceeded`, irritants: [] };
      } else if (e instanceof LispexError && e.code === 'recursion-limit') {
        status = 'resource';
        limitHit = 'non-tail-call-depth';
        error = { code: e.code, phase: 'resource', at: e.span ?? site, message: e.message, irritants: [] };
      } else if (e instanceof LispexError) {
        const failedIn: Phase = phase === 'runtime' ? 'runtime' : progress.phase;
        status = failedIn === 'runtime' ? 'runtime-error' : 'source-error';
        // INTERACTIVE-OUTPUT-1: output the failed form committed before the fault stays.
        if (failedIn === 'runtime' && formStart >= 0) interactive += ctx.stdout().slice(formStart);
        error = { code: e.code, phase: failedIn, at: e.span ?? site, message: e.message, irritants: e.irritants };
      } else if (isHostStackOverflow(e)) {
        // The JS stack ran out outside the machines' own checks (deeply nested data in a
        // primitive or the normalizer): the host-safety limit, never a crash.
        status = 'resource';
        limitHit = 'non-tail-call-depth';
        error = { code: 'recursion-limit', phase: 'resource', at: site, message: DEFAULT_MESSAGES['recursion-limit'], irritants: [] };
      } else {
        status = 'infrastructure-error';
        error = {
          code: 'infrastructure-error',
          phase: 'runtime',
          at: site,
          message: e instanceof Error ? e.message : String(e),
          irritants: [],
        };
      }
    }

    const stdoutText = status === 'resource' || status === 'source-error' ? '' : ctx.stdout();
    if (status === 'resource' || status === 'source-error') interactive = '';
    const diagnostics: DiagnosticRecord[] = [];
    if (error !== null) {
      const irritants = boundedIrritants(error.irritants);
      // A guest `(error msg …)` chooses the message: bounded like an irritant.
      const message = error.message.length > MESSAGE_TEXT_LIMIT ? `${error.message.slice(0, MESSAGE_TEXT_LIMIT)}...` : error.message;
      diagnostics.push({
        code: error.code,
        severity: 'error',
        phase: error.phase,
        source: progress.diagnosticSource,
        line: error.at.line,
        column: error.at.column,
        message,
        irritants,
        rendered: renderDiagnostic(error.code, progress.diagnosticSource, error.at, message, irritants),
      });
    }
    const warnings: DiagnosticRecord[] = ctx.warnings.map((w) => warningRecord(w.code, sourceId, w.at));
    const exit =
      status === 'ok' ? 0 : status === 'resource' ? 2 : status === 'infrastructure-error' ? 3 : error ? exitStatusOf(error.code) : 1;
    const values: ValueRecord[] = status === 'ok' ? lastValues.map(projectValueRecord) : [];

    return {
      status,
      stdout: stdoutText,
      stdout_bytes: Buffer.byteLength(stdoutText, 'utf8'),
      diagnostics,
      warnings,
      exit_status: exit,
      values,
      interactive_stdout: interactive,
      resource_outcome: {
        status: status === 'resource' ? 'limit-exceeded' : 'within-limits',
        ...(limitHit !== undefined ? { limit: limitHit } : {}),
        profile_id: profile.id,
        purpose: profile.purpose,
        limits,
        usage: meter.usage(),
      },
      metrics: {
        max_call_depth: ctx.maxDepth,
        call_depth_limit: CALL_DEPTH_LIMIT,
        forms,
        wall_ms: Math.round((performance.now() - started) * 1000) / 1000,
      },
      identity: {
        source_sha256: sha256Hex(bytes),
        ...(inputBytes !== undefined ? { input_sha256: sha256Hex(inputBytes) } : {}),
        profile_id: profile.id,
        meter_id: METER_ID,
        meter_manifest_id: METER_MANIFEST_ID,
        route: opts.route,
        engine: `mcp-engines/lispex-${opts.route}`,
        engine_version: ENGINE_VERSION,
        language_profile: LANGUAGE_PROFILE,
      },
    };
  }
}

function warningRecord(code: WarningCode, source: string, at: SourcePosition): DiagnosticRecord {
  const message = DEFAULT_MESSAGES[code];
  return {
    code,
    severity: 'warning',
    phase: 'runtime',
    source,
    line: at.line,
    column: at.column,
    message,
    irritants: [],
    rendered: renderDiagnostic(code, source, at, message),
  };
}

/**
 * Most irritants one diagnostic carries, and most UTF-16 units of each written irritant: a huge
 * irritant (a 300,000-element list passed to `+`) must not make the diagnostic undeliverable.
 * Cut irritants end with the printer's `...`; dropped ones are counted in a last `...N more`.
 */
export const IRRITANT_COUNT_LIMIT = 16;
export const IRRITANT_TEXT_LIMIT = 512;
/** Most UTF-16 units of a diagnostic message (the guest's own text for `error`). */
export const MESSAGE_TEXT_LIMIT = 2048;

function boundedIrritants(irritants: readonly Value[]): string[] {
  const out = irritants.slice(0, IRRITANT_COUNT_LIMIT).map((v) => safeWrite(v, IRRITANT_TEXT_LIMIT));
  if (irritants.length > IRRITANT_COUNT_LIMIT) out.push(`...${irritants.length - IRRITANT_COUNT_LIMIT} more`);
  return out;
}

function safeWrite(v: Value, maxLength = Number.POSITIVE_INFINITY): string {
  try {
    return writeValue(v, maxLength);
  } catch {
    return '#<unprintable>';
  }
}

function projectValueRecord(v: Value): ValueRecord {
  const value = project(v, new Set(), 0);
  return { portable: isPortable(value), value, printed: safeWrite(v) };
}

function isPortable(p: ProjectedValue): boolean {
  switch (p.kind) {
    case 'proper-list':
    case 'vector':
      return p.items.every(isPortable);
    case 'improper-list':
      return p.items.every(isPortable) && isPortable(p.tail);
    case 'procedure':
    case 'continuation':
    case 'error-object':
    case 'unspecified':
    case 'cyclic':
    case 'too-deep':
      return false;
    default:
      return true;
  }
}

/**
 * Structured JSON of a value. List spines are walked iteratively; nesting (cars, vector items)
 * is cut at PROJECTION_DEPTH_LIMIT; `seen` breaks vector cycles.
 */
function project(v: Value, seen: Set<LVector>, depth: number): ProjectedValue {
  if (depth > PROJECTION_DEPTH_LIMIT) return { kind: 'too-deep' };
  if (typeof v === 'number' || typeof v === 'bigint') return { kind: 'integer', value: String(v) };
  if (typeof v === 'boolean') return { kind: 'boolean', value: v };
  if (v === NIL) return { kind: 'nil' };
  if (v instanceof Ratnum) return { kind: 'rational', numerator: String(v.num), denominator: String(v.den) };
  if (v instanceof Flonum) return { kind: 'finite-real', value: v.value };
  if (v instanceof Char) return { kind: 'character', value: String.fromCodePoint(v.codePoint), code_point: v.codePoint };
  if (v instanceof Sym) return { kind: 'symbol', name: v.name };
  if (v instanceof LString) return { kind: 'string', value: v.value };
  if (v instanceof Bytevector) return { kind: 'bytevector', bytes: Array.from(v.bytes) };
  if (v instanceof Pair) {
    const items: ProjectedValue[] = [];
    let x: Value = v;
    while (x instanceof Pair) {
      items.push(project(x.car, seen, depth + 1));
      x = x.cdr;
    }
    return x === NIL ? { kind: 'proper-list', items } : { kind: 'improper-list', items, tail: project(x, seen, depth + 1) };
  }
  if (v instanceof LVector) {
    if (seen.has(v)) return { kind: 'cyclic' };
    seen.add(v);
    const items = v.items.map((x) => project(x, seen, depth + 1));
    seen.delete(v);
    return { kind: 'vector', items };
  }
  if (v instanceof Closure || v instanceof Primitive) return { kind: 'procedure' };
  if (v instanceof Continuation) return { kind: 'continuation' };
  if (v instanceof ErrorObject) return { kind: 'error-object' };
  return { kind: 'unspecified' };
}
