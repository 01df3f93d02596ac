// The primitive table, DERIVED from the byte-exact contract primitive-capabilities.v2.json
// (never retyped): one typed row per guest name, with its arity bounds parsed from the
// contract's arity text and its family taken from the intrinsic id.

import capabilitiesJson from '../contracts/primitive-capabilities.v2.json' with { type: 'json' };

export type PrimitiveFamily =
  | 'equality'
  | 'compat'
  | 'numeric'
  | 'hof'
  | 'aggregate'
  | 'control'
  | 'search'
  | 'predicate'
  | 'char'
  | 'string'
  | 'io'
  | 'error-object'
  | 'symbol';

export const PRIMITIVE_FAMILIES: readonly PrimitiveFamily[] = [
  'equality',
  'compat',
  'numeric',
  'hof',
  'aggregate',
  'control',
  'search',
  'predicate',
  'char',
  'string',
  'io',
  'error-object',
  'symbol',
];

export interface PrimitiveCapability {
  readonly id: number;
  readonly name: string;
  /** Names in one group are one runtime procedure (call/cc = call-with-current-continuation, …). */
  readonly identityGroup: string;
  readonly intrinsicId: string;
  readonly family: PrimitiveFamily;
  /** The contract's arity text: `2`, `0+`, `1-2`, `1-or-2`, … */
  readonly arity: string;
  readonly minArgs: number;
  /** `Infinity` for `n+`. */
  readonly maxArgs: number;
  readonly argumentCodecs: readonly string[];
  readonly resultCodec: string;
  readonly valueCardinality: string;
  readonly diagnosticFamily: readonly string[];
  readonly determinismClass: string;
  readonly mayCallGuestProcedure: boolean;
  readonly logicalCostModel: string;
}

export const CAPABILITIES_SCHEMA: string = capabilitiesJson.schema;
/** The release gate's row count (205). */
export const REQUIRED_ROWS: number = capabilitiesJson.release_gate.required_supported_rows;

/** Parse the contract's arity text into bounds; unknown shapes are a load error. */
export function parseArity(text: string): { minArgs: number; maxArgs: number } {
  let m = /^(\d+)$/.exec(text);
  if (m) return { minArgs: Number(m[1]), maxArgs: Number(m[1]) };
  m = /^(\d+)\+$/.exec(text);
  if (m) return { minArgs: Number(m[1]), maxArgs: Infinity };
  m = /^(\d+)-(?:or-)?(\d+)$/.exec(text);
  if (m) return { minArgs: Number(m[1]), maxArgs: Number(m[2]) };
  throw new Error(`primitive-capabilities: unknown arity ${JSON.stringify(text)}`);
}

function loadCapabilities(): readonly PrimitiveCapability[] {
  const columns = capabilitiesJson.columns as string[];
  const col = (name: string): number => {
    const i = columns.indexOf(name);
    if (i < 0) throw new Error(`primitive-capabilities: missing column ${name}`);
    return i;
  };
  const c = {
    id: col('capability_id'),
    name: col('guest_name'),
    group: col('runtime_identity_group'),
    intrinsic: col('intrinsic_id'),
    arity: col('arity'),
    args: col('argument_codecs'),
    result: col('result_codec'),
    cardinality: col('value_cardinality'),
    diag: col('diagnostic_family'),
    determinism: col('determinism_class'),
    guest: col('may_call_guest_procedure'),
    cost: col('logical_cost_model'),
  };
  return (capabilitiesJson.rows as unknown[][]).map((r) => {
    const intrinsicId = r[c.intrinsic] as string;
    const family = intrinsicId.split('/')[0] as PrimitiveFamily;
    if (!PRIMITIVE_FAMILIES.includes(family)) throw new Error(`primitive-capabilities: unknown family ${family}`);
    const arity = r[c.arity] as string;
    return {
      id: r[c.id] as number,
      name: r[c.name] as string,
      identityGroup: r[c.group] as string,
      intrinsicId,
      family,
      arity,
      ...parseArity(arity),
      argumentCodecs: r[c.args] as string[],
      resultCodec: r[c.result] as string,
      valueCardinality: r[c.cardinality] as string,
      diagnosticFamily: r[c.diag] as string[],
      determinismClass: r[c.determinism] as string,
      mayCallGuestProcedure: r[c.guest] as boolean,
      logicalCostModel: r[c.cost] as string,
    };
  });
}

/** Every row of the contract, in contract order (guest-name code-point order). */
export const PRIMITIVE_CAPABILITIES: readonly PrimitiveCapability[] = loadCapabilities();
