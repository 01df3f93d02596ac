// The bytecode of the VM route: a flat Int32Array per procedure with resolved lexical addresses,
// plus a constant pool. It is a documented superset of the contract's 22 opcodes (README §7):
// the contract's names map onto these as listed in OPCODE_CONTRACT_NAMES, and the extra ones are
// specializations (depth-0/1 loads, checked letrec loads, fixnum fast paths) that keep the VM
// from allocating or dispatching through generic calls on hot paths.

import type { Span } from './diagnostics.js';
import type { ClosureCode, Value } from './values.js';

export enum Op {
  /** push consts[k] */
  CONST = 0,
  /** push env[i] (current frame) */
  LOCAL,
  /** push env[0][i] (enclosing frame) */
  LOCAL1,
  /** push (depth d) frame slot i */
  LEXICAL,
  /** LOCAL with the letrec check (E321); second operand: the name (constant) */
  LOCAL_CHECKED,
  /** LEXICAL with the letrec check (E321); third operand: the name (constant) */
  LEXICAL_CHECKED,
  /** push consts[k].value (a GlobalCell); E300 when unassigned */
  GLOBAL,
  /** push the primitive consts[k] (a global name proven never assigned) */
  PRIMITIVE,
  /** env(d)[i] = pop; push zero values */
  SET_LEXICAL,
  /** consts[k].value = pop (E303 if unassigned); push zero values */
  SET_GLOBAL,
  /** consts[k].value = pop; push zero values */
  DEFINE_GLOBAL,
  /** env[i] = pop (let/letrec/guard slot initialization) */
  INIT_LOCAL,
  /** env[i] = unassigned (entering a letrec scope) */
  UNASSIGN,
  /** push a closure over env for code object consts[k] */
  CLOSURE,
  /** pop and discard */
  POP,
  /** E320 unless the top value is exactly one value */
  REQUIRE_ONE,
  /** pop n values, push them as one (multiple) value */
  VALUES,
  /** pc = a */
  JUMP,
  /** pop; if #f then pc = a */
  JUMP_IF_FALSE,
  /** call stack[sp-n-1] with n arguments */
  CALL,
  /** tail call with n arguments */
  TAIL_CALL,
  /** return the top value to the caller */
  RETURN,
  /** install a guard whose handler code starts at a */
  GUARD_PUSH,
  /** leave the innermost guard normally */
  GUARD_POP,
  // Fast paths for unshadowed primitives; operand k = the primitive (fallback and errors).
  ADD,
  SUB,
  MUL,
  LT,
  GT,
  LE,
  GE,
  NUM_EQ,
  CONS,
  EQ,
  CAR,
  CDR,
  NULLP,
  PAIRP,
  NOT,
  ZEROP,
  // A test fused with the branch of an `if`: operands k (the primitive), a (jump when false).
  JLT,
  JGT,
  JLE,
  JGE,
  JNUM_EQ,
  JNULLP,
  JPAIRP,
}

/** Operand count per opcode (all operands are one Int32 each). */
export const OPERANDS: Readonly<Record<number, number>> = {
  [Op.CONST]: 1,
  [Op.LOCAL]: 1,
  [Op.LOCAL1]: 1,
  [Op.LEXICAL]: 2,
  [Op.LOCAL_CHECKED]: 2,
  [Op.LEXICAL_CHECKED]: 3,
  [Op.GLOBAL]: 1,
  [Op.PRIMITIVE]: 1,
  [Op.SET_LEXICAL]: 2,
  [Op.SET_GLOBAL]: 1,
  [Op.DEFINE_GLOBAL]: 1,
  [Op.INIT_LOCAL]: 1,
  [Op.UNASSIGN]: 1,
  [Op.CLOSURE]: 1,
  [Op.POP]: 0,
  [Op.REQUIRE_ONE]: 0,
  [Op.VALUES]: 1,
  [Op.JUMP]: 1,
  [Op.JUMP_IF_FALSE]: 1,
  [Op.CALL]: 1,
  [Op.TAIL_CALL]: 1,
  [Op.RETURN]: 0,
  [Op.GUARD_PUSH]: 1,
  [Op.GUARD_POP]: 0,
  [Op.ADD]: 1,
  [Op.SUB]: 1,
  [Op.MUL]: 1,
  [Op.LT]: 1,
  [Op.GT]: 1,
  [Op.LE]: 1,
  [Op.GE]: 1,
  [Op.NUM_EQ]: 1,
  [Op.CONS]: 1,
  [Op.EQ]: 1,
  [Op.CAR]: 1,
  [Op.CDR]: 1,
  [Op.NULLP]: 1,
  [Op.PAIRP]: 1,
  [Op.NOT]: 1,
  [Op.ZEROP]: 1,
  [Op.JLT]: 2,
  [Op.JGT]: 2,
  [Op.JLE]: 2,
  [Op.JGE]: 2,
  [Op.JNUM_EQ]: 2,
  [Op.JNULLP]: 2,
  [Op.JPAIRP]: 2,
};

export const OP_NAMES: readonly string[] = [
  'const',
  'local',
  'local1',
  'lexical',
  'local-checked',
  'lexical-checked',
  'global',
  'primitive',
  'set-lexical',
  'set-global',
  'define-global',
  'init-local',
  'unassign',
  'closure',
  'pop',
  'require-one',
  'values',
  'jump',
  'jump-if-false',
  'call',
  'tail-call',
  'return',
  'guard-push',
  'guard-pop',
  'add',
  'sub',
  'mul',
  'lt',
  'gt',
  'le',
  'ge',
  'num-eq',
  'cons',
  'eq',
  'car',
  'cdr',
  'null?',
  'pair?',
  'not',
  'zero?',
  'jump-unless-lt',
  'jump-unless-gt',
  'jump-unless-le',
  'jump-unless-ge',
  'jump-unless-num-eq',
  'jump-unless-null?',
  'jump-unless-pair?',
];

/** The contract's 22 opcode names and the opcodes of this VM that realize each. */
export const OPCODE_CONTRACT_NAMES: Readonly<Record<string, readonly string[]>> = {
  constant: ['const'],
  'load-lexical': ['local', 'local1', 'lexical', 'local-checked', 'lexical-checked'],
  'load-global': ['global'],
  'load-primitive': ['primitive'],
  'make-closure': ['closure'],
  'require-one': ['require-one'],
  discard: ['pop'],
  'make-values': ['values'],
  'set-lexical': ['set-lexical'],
  'set-global': ['set-global'],
  'define-lexical': ['init-local'],
  'define-global': ['define-global'],
  'enter-let': ['init-local'],
  'enter-recursive-scope': ['unassign'],
  'initialize-lexical': ['init-local'],
  'leave-scope': [],
  jump: ['jump'],
  'jump-if-false': [
    'jump-if-false',
    'jump-unless-lt',
    'jump-unless-gt',
    'jump-unless-le',
    'jump-unless-ge',
    'jump-unless-num-eq',
    'jump-unless-null?',
    'jump-unless-pair?',
  ],
  call: ['call', 'add', 'sub', 'mul', 'lt', 'gt', 'le', 'ge', 'num-eq', 'cons', 'eq', 'car', 'cdr', 'null?', 'pair?', 'not', 'zero?'],
  'tail-call': ['tail-call'],
  guard: ['guard-push', 'guard-pop'],
  return: ['return'],
};

/** One compiled procedure body (or top-level form). */
export class CodeObject implements ClosureCode {
  constructor(
    readonly name: string | null,
    /** Number of required parameters. */
    readonly required: number,
    readonly rest: boolean,
    /** Size of an environment array: slot 0 is the parent, then parameters, then locals. */
    readonly frameSize: number,
    readonly code: Int32Array,
    readonly consts: readonly unknown[],
    /** Source span per instruction start (sparse). */
    readonly spans: readonly (Span | undefined)[],
  ) {}
}

/** Human-readable listing of a code object (for tests and docs). */
export function disassemble(c: CodeObject, show: (v: Value) => string = String): string {
  const lines: string[] = [`code ${c.name ?? '<anonymous>'} required=${c.required} rest=${c.rest} frame=${c.frameSize}`];
  for (let pc = 0; pc < c.code.length; ) {
    const op = c.code[pc]!;
    const n = OPERANDS[op] ?? 0;
    const args = Array.from(c.code.subarray(pc + 1, pc + 1 + n));
    let note = '';
    if (op === Op.CONST) note = ` ; ${show(c.consts[args[0]!] as Value)}`;
    lines.push(`${String(pc).padStart(5)} ${OP_NAMES[op]} ${args.join(' ')}${note}`);
    pc += 1 + n;
  }
  return lines.join('\n');
}
