// What two runs of one test DID, compared field by field (issue 35 part 5): the status and its
// reason's verdict, every $D7FF write (value and cycle), each memory expectation's bytes, the screen
// text, the crash (kind, site, cycle). Runs of one test on two targets (a vice run and an ultimate
// run) compare here: every cycle counts from the same origin on both (docs/ultimate/SERVICE.md,
// "Where a program starts, and the one clock"). Every difference is named; none is summarised away.

export interface BehaviourRun {
  readonly target: string;
  readonly status: string;
  readonly observations?: object | null;
  readonly crash_state?: object | null;
}

export interface BehaviourDifference {
  /** e.g. "status", "debug_register_writes[1].cycle", "memory[0].actual", "screen_text[3]", "crash.site". */
  readonly field: string;
  readonly baseline: unknown;
  readonly candidate: unknown;
}

export interface BehaviourComparison {
  readonly targets: { readonly baseline: string; readonly candidate: string };
  readonly same: boolean;
  readonly differences: readonly BehaviourDifference[];
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function crashOf(r: BehaviourRun): Obj | null {
  const c = r.crash_state ? obj(r.crash_state) : null;
  if (!c) return null;
  return { kind: c.kind ?? null, site: obj(c.site).address_hex ?? null, cycle: c.cycle ?? null };
}

/**
 * A memory observation's bytes in the bits its expectation names: bits outside a mask are no
 * behaviour of the program (colour RAM's upper nibble is open bus: $F_ on x64sc, $0_ on the
 * virtual C64), so they are no difference either.
 */
function masked(m: Obj | undefined): unknown {
  const actual = m?.actual;
  if (typeof actual !== 'string' || typeof m?.mask !== 'string') return actual;
  const mask = Buffer.from(m.mask, 'hex');
  return Buffer.from(Buffer.from(actual, 'hex').map((b, i) => b & (mask[i] ?? 0xff))).toString('hex');
}

export function compareBehaviour(baseline: BehaviourRun, candidate: BehaviourRun): BehaviourComparison {
  const d: BehaviourDifference[] = [];
  const diff = (field: string, b: unknown, c: unknown) => {
    if (JSON.stringify(b) !== JSON.stringify(c)) d.push({ field, baseline: b ?? null, candidate: c ?? null });
  };
  const bo = obj(baseline.observations);
  const co = obj(candidate.observations);
  diff('status', baseline.status, candidate.status);
  diff('debug_register', bo.debug_register, co.debug_register);
  const bw = arr(bo.debug_register_writes).map(obj);
  const cw = arr(co.debug_register_writes).map(obj);
  diff('debug_register_writes.length', bw.length, cw.length);
  for (let i = 0; i < Math.min(bw.length, cw.length); i++) {
    diff(`debug_register_writes[${i}].value`, bw[i]?.value, cw[i]?.value);
    // A cycle only one target counted is not a difference of the program's behaviour.
    if (bw[i]?.cycle != null && cw[i]?.cycle != null) diff(`debug_register_writes[${i}].cycle`, bw[i]?.cycle, cw[i]?.cycle);
  }
  const bm = arr(bo.memory).map(obj);
  const cm = arr(co.memory).map(obj);
  for (let i = 0; i < Math.max(bm.length, cm.length); i++) {
    diff(`memory[${i}].actual`, masked(bm[i]), masked(cm[i]));
    diff(`memory[${i}].matched`, bm[i]?.matched, cm[i]?.matched);
  }
  const bs = arr(bo.screen_text);
  const cs = arr(co.screen_text);
  for (let i = 0; i < Math.max(bs.length, cs.length); i++) diff(`screen_text[${i}]`, bs[i], cs[i]);
  const bc = crashOf(baseline);
  const cc = crashOf(candidate);
  if (bc === null || cc === null) diff('crash', bc, cc);
  else {
    diff('crash.kind', bc.kind, cc.kind);
    diff('crash.site', bc.site, cc.site);
    if (bc.cycle !== null && cc.cycle !== null) diff('crash.cycle', bc.cycle, cc.cycle);
  }
  return { targets: { baseline: baseline.target, candidate: candidate.target }, same: d.length === 0, differences: d };
}
