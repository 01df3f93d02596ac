// The derivation handed to an external product (lispex.external-backend-protocol/v1): the same
// reader → normalizer → compiler pipeline the built-in VM route runs, serialized as JSON. The
// front end runs here once; the product runs the machine. A front-end fault (reader, normalizer,
// form depth, front-end meter axes) travels as `front_end_fault`, which the product restates.

import { CodeObject } from '../bytecode.js';
import { Compiler } from '../compiler.js';
import { Temp, coreToSexpr, type CoreProgram } from '../core-ir.js';
import { DEFAULT_MESSAGES, LispexError, exitStatusOf } from '../diagnostics.js';
import { primitiveTable } from '../evaluator.js';
import { type FrontEndProgress, runFrontEnd } from '../front-end.js';
import { GlobalCell, Globals, UNASSIGNED } from '../globals.js';
import { isHostStackOverflow } from '../machine-errors.js';
import { DEFAULT_PROFILE_ID, EXHAUSTION_CODES, Meter, ResourceExhausted, profileById } from '../meter.js';
import type { ResourceLimits, ResourceUsage } from '../observation.js';
import { writeValue } from '../printer.js';
import { encodeSource, sha256Hex } from '../source.js';
import {
  Bytevector,
  Char,
  Flonum,
  LString,
  LVector,
  MultipleValues,
  NIL,
  Pair,
  Primitive,
  Ratnum,
  Sym,
  Unspecified,
  type Value,
} from '../values.js';

export const EXTERNAL_PROTOCOL = 'lispex.external-backend-protocol/v1';

/** A constant of the derivation: a tagged JSON array (see docs/lispex/EXTERNAL-PRODUCTS.md). */
export type WireConstant = readonly (string | number | WireConstant | readonly WireConstant[])[];

export interface WireCode {
  readonly name: string | null;
  readonly required: number;
  readonly rest: boolean;
  readonly frame: number;
  readonly code: readonly number[];
  readonly consts: readonly WireConstant[];
  /** [instruction index, line, column] for every instruction that has a source position. */
  readonly spans: readonly (readonly [number, number, number])[];
}

export interface FrontEndFault {
  readonly status: 'source-error' | 'resource';
  readonly code: string;
  readonly phase: 'reader' | 'normalizer' | 'resource';
  readonly source: string;
  readonly line: number;
  readonly column: number;
  readonly message: string;
  readonly irritants: readonly string[];
  readonly exit_status: number;
  readonly limit: string | null;
  readonly usage: ResourceUsage;
}

export interface Derivation {
  readonly front_end_fault: FrontEndFault | null;
  /** Every primitive identity group with its registry arity (max null = unbounded). */
  readonly primitives: readonly { name: string; min: number; max: number | null }[];
  /** Global cells referenced by the code, with their value before the first form runs. */
  readonly globals: readonly { name: string; initial: WireConstant | null }[];
  readonly codes: readonly WireCode[];
  /** Top-level forms in order: the code object to run and the form's position. */
  readonly forms: readonly { code: number; line: number; column: number }[];
  /** The canonical span-free Core IR of each top-level form (identity of the derivation). */
  readonly core_ir: readonly string[];
}

export interface ResourceRequest {
  readonly profile_id: string;
  readonly purpose: string;
  readonly limits: ResourceLimits;
  /**
   * Bound on stdout as a JSON string body (UTF-8 bytes as JSON.stringify escapes it), or null
   * for none: the same bound the built-in routes get as RunOptions.stdoutJsonLimit.
   */
  readonly stdout_json_limit: number | null;
}

export interface ExternalRequest {
  readonly protocol: typeof EXTERNAL_PROTOCOL;
  readonly source_id: string;
  readonly source_sha256: string;
  readonly input_sha256: string | null;
  readonly resource_request: ResourceRequest;
  readonly front_end_usage: ResourceUsage;
  readonly derivation: Derivation;
}

class Serializer {
  readonly codes: WireCode[] = [];
  private readonly codeIndex = new Map<CodeObject, number>();
  readonly globals: { name: string; initial: WireConstant | null }[] = [];
  private readonly globalIndex = new Map<GlobalCell, number>();

  code(c: CodeObject): number {
    const known = this.codeIndex.get(c);
    if (known !== undefined) return known;
    const index = this.codes.length;
    this.codeIndex.set(c, index);
    this.codes.push(null as unknown as WireCode); // reserve the slot; nested codes come after
    const spans: [number, number, number][] = [];
    c.spans.forEach((s, pc) => {
      if (s !== undefined) spans.push([pc, s.line, s.column]);
    });
    const consts = c.consts.map((k) => this.constant(k));
    this.codes[index] = {
      name: c.name,
      required: c.required,
      rest: c.rest,
      frame: c.frameSize,
      code: Array.from(c.code),
      consts,
      spans,
    };
    return index;
  }

  private global(cell: GlobalCell): number {
    const known = this.globalIndex.get(cell);
    if (known !== undefined) return known;
    const index = this.globals.length;
    this.globalIndex.set(cell, index);
    this.globals.push({ name: cell.name.name, initial: null });
    this.globals[index] = { name: cell.name.name, initial: cell.value === UNASSIGNED ? null : this.constant(cell.value) };
    return index;
  }

  constant(v: unknown): WireConstant {
    if (v instanceof CodeObject) return ['code', this.code(v)];
    if (v instanceof GlobalCell) return ['g', this.global(v)];
    if (v instanceof Temp) return ['temp', v.hint];
    return value(v as Value);
  }
}

function value(v: Value): WireConstant {
  if (typeof v === 'number' || typeof v === 'bigint') return ['i', String(v)];
  if (typeof v === 'boolean') return [v ? 't' : 'F'];
  if (v === NIL) return ['n'];
  if (v instanceof Flonum) return ['f', Object.is(v.value, -0) ? '-0' : String(v.value)];
  if (v instanceof Ratnum) return ['r', String(v.num), String(v.den)];
  if (v instanceof LString) return ['s', v.value];
  if (v instanceof Sym) return ['y', v.name];
  if (v instanceof Char) return ['c', v.codePoint];
  if (v instanceof Pair) {
    const items: WireConstant[] = [];
    let p: Value = v;
    while (p instanceof Pair) {
      items.push(value(p.car));
      p = p.cdr;
    }
    return ['l', items, value(p)];
  }
  if (v instanceof LVector) return ['v', v.items.map(value)];
  if (v instanceof Bytevector) return ['u8', Array.from(v.bytes)];
  if (v instanceof Primitive) return ['p', v.name];
  if (v instanceof MultipleValues && v.values.length === 0) return ['none'];
  if (v instanceof Unspecified) return ['unspec'];
  throw new Error(`internal: value ${writeValue(v)} cannot be a constant of the derivation`);
}

/** The primitive identity groups, each once, in registry order. */
function primitiveGroups(): Primitive[] {
  return [...new Set(primitiveTable().values())];
}

/**
 * Build the request for an external product: the derivation of `source` (and `input`) with the
 * fixed authoring profile's resource request.
 */
export function buildExternalRequest(
  source: string,
  input: string | undefined,
  sourceId: string,
  stdoutJsonLimit: number | null = null,
): ExternalRequest {
  const bytes = encodeSource(source);
  const inputBytes = input === undefined ? undefined : encodeSource(input);
  const profile = profileById(DEFAULT_PROFILE_ID);
  const meter = new Meter(profile.limits);
  const primitives = primitiveTable();
  const globals = new Globals();
  for (const [name, prim] of primitives) globals.define(name, prim);
  const groups = primitiveGroups();
  const wirePrimitives = groups.map((p) => ({ name: p.name, min: p.minArgs, max: Number.isFinite(p.maxArgs) ? p.maxArgs : null }));
  const progress: FrontEndProgress = { phase: 'reader', diagnosticSource: sourceId };
  let program: CoreProgram;
  try {
    let inputValue: Value | undefined;
    ({ program, inputValue } = runFrontEnd(bytes, inputBytes, sourceId, meter, (name) => primitives.get(name)!, progress));
    if (inputValue !== undefined) globals.define('input', inputValue);
  } catch (e) {
    const fault = frontEndFault(e, progress.phase, progress.diagnosticSource, meter);
    return request(bytes, inputBytes, sourceId, profile, stdoutJsonLimit, meter.usage(), {
      front_end_fault: fault,
      primitives: wirePrimitives,
      globals: [],
      codes: [],
      forms: [],
      core_ir: [],
    });
  }
  const compiler = new Compiler(program, globals, primitives);
  const serializer = new Serializer();
  const forms = program.forms.map((form) => ({
    code: serializer.code(compiler.compileForm(form)),
    line: form.span.line,
    column: form.span.column,
  }));
  const coreIr = program.forms.map((form) => coreToSexpr(form, (v) => writeValue(v)));
  return request(bytes, inputBytes, sourceId, profile, stdoutJsonLimit, meter.usage(), {
    front_end_fault: null,
    primitives: wirePrimitives,
    globals: serializer.globals,
    codes: serializer.codes,
    forms,
    core_ir: coreIr,
  });
}

function request(
  bytes: Uint8Array,
  inputBytes: Uint8Array | undefined,
  sourceId: string,
  profile: ReturnType<typeof profileById>,
  stdoutJsonLimit: number | null,
  usage: ResourceUsage,
  derivation: Derivation,
): ExternalRequest {
  return {
    protocol: EXTERNAL_PROTOCOL,
    source_id: sourceId,
    source_sha256: sha256Hex(bytes),
    input_sha256: inputBytes === undefined ? null : sha256Hex(inputBytes),
    resource_request: {
      profile_id: profile.id,
      purpose: profile.purpose,
      limits: { ...profile.limits },
      stdout_json_limit: stdoutJsonLimit,
    },
    front_end_usage: usage,
    derivation,
  };
}

/** The evaluator's mapping of a front-end failure, restated for the product. */
function frontEndFault(e: unknown, phase: 'reader' | 'normalizer', source: string, meter: Meter): FrontEndFault {
  const common = { source, usage: meter.usage() };
  if (e instanceof ResourceExhausted) {
    const at = e.at ?? { line: 1, column: 1 };
    return {
      ...common,
      status: 'resource',
      code: EXHAUSTION_CODES[e.axis],
      phase: 'resource',
      line: at.line,
      column: at.column,
      message: `${e.axis} limit exceeded`,
      irritants: [],
      exit_status: 2,
      limit: e.axis,
    };
  }
  if (e instanceof LispexError && e.code === 'recursion-limit') {
    const at = e.span ?? { line: 1, column: 1 };
    return {
      ...common,
      status: 'resource',
      code: e.code,
      phase: 'resource',
      line: at.line,
      column: at.column,
      message: e.message,
      irritants: [],
      exit_status: 2,
      limit: 'non-tail-call-depth',
    };
  }
  if (e instanceof LispexError) {
    const at = e.span ?? { line: 1, column: 1 };
    return {
      ...common,
      status: 'source-error',
      code: e.code,
      phase,
      line: at.line,
      column: at.column,
      message: e.message,
      irritants: e.irritants.map((v) => writeValue(v)),
      exit_status: exitStatusOf(e.code),
      limit: null,
    };
  }
  if (isHostStackOverflow(e)) {
    return {
      ...common,
      status: 'resource',
      code: 'recursion-limit',
      phase: 'resource',
      line: 1,
      column: 1,
      message: DEFAULT_MESSAGES['recursion-limit'],
      irritants: [],
      exit_status: 2,
      limit: 'non-tail-call-depth',
    };
  }
  throw e;
}
