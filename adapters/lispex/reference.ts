// lispex_reference: the installed profile and registry, answered from the contract data. Topics:
// forms, procedures, reader, resources, routes. With a name, the one exact entry (or known:false).

import {
  DIAGNOSTIC_CATALOG,
  METER_MANIFEST,
  PRIMITIVE_CAPABILITIES,
  PROFILE,
  PROFILE_SURFACE,
  SOURCE_FRONTEND,
  mcpResourceProfile,
  rowsAsObjects,
} from './contracts.js';
import { primitiveTable, RESERVED_NAMES } from '../../engines/lispex/index.js';
import { FIXED_BOUNDS, type BoundName } from './bounds.js';
import { courtAvailability, COURTS } from './courts.js';
import type { StartupProducts } from './products.js';

export const REFERENCE_TOPICS = ['forms', 'procedures', 'reader', 'resources', 'routes'] as const;
export type ReferenceTopic = (typeof REFERENCE_TOPICS)[number];

type Entry = Record<string, unknown> & { readonly name: string };

// ---------------------------------------------------------------------------------------------
// forms

const CORE_SYNTAX: Record<string, [keyword: string, syntax: string, summary: string]> = {
  literal: ['', '#t 42 1/3 2.5 #\\a "text" #(1 2) #u8(1 2)', 'A self-evaluating datum.'],
  variable: ['', 'identifier', 'The value bound to an identifier (E300 when unbound).'],
  quote: ['quote', "(quote datum) or 'datum", 'The datum itself, unevaluated.'],
  if: ['if', '(if test consequent [alternate])', 'Only #f is false.'],
  lambda: [
    'lambda',
    '(lambda (param …) body …), (lambda (param … . rest) body …), (lambda rest body …)',
    'A procedure; bodies may start with internal definitions.',
  ],
  begin: ['begin', '(begin form …)', 'Evaluates forms in order; the last gives the value.'],
  'set!': ['set!', '(set! identifier expression)', 'Assigns an existing binding (E303 when unbound).'],
  define: ['define', '(define identifier expression)', 'Binds a name at top level or as a leading internal definition.'],
  let: ['let', '(let ((identifier init) …) body …)', 'Parallel local bindings.'],
  letrec: ['letrec', '(letrec ((identifier init) …) body …)', 'Recursive local bindings (E321 when read before initialized).'],
  values: ['values', '(values expression …)', 'Zero or more values (E320 when misused).'],
  application: ['', '(operator operand …)', 'Procedure call; proper tail calls (E301 non-procedure, E302 arity).'],
  guard: [
    'guard',
    '(guard (identifier clause … [(else expression …)]) body …)',
    'Catches raised objects and runtime errors; clauses as in cond; re-raises when no clause matches.',
  ],
};

const DERIVED_SYNTAX: Record<string, [keyword: string, syntax: string, summary: string]> = {
  quasiquote: ['quasiquote', '`template with ,expression and ,@expression', 'Template construction of lists and vectors.'],
  'let*': ['let*', '(let* ((identifier init) …) body …)', 'Sequential local bindings.'],
  'named-let': ['let', '(let name ((identifier init) …) body …)', 'A local recursive procedure called at once; loops in constant space.'],
  cond: ['cond', '(cond (test expression …) … [(else expression …)])', 'First clause whose test is true.'],
  case: ['case', '(case key ((datum …) expression …) … [(else expression …)])', 'Dispatch on eqv? against data.'],
  and: ['and', '(and expression …)', 'First #f or the last value.'],
  or: ['or', '(or expression …)', 'First true value or #f.'],
  when: ['when', '(when test body …)', 'Body when test is true.'],
  unless: ['unless', '(unless test body …)', 'Body when test is #f.'],
  do: ['do', '(do ((variable init [step]) …) (test expression …) command …)', 'Iteration.'],
  'function-define': ['define', '(define (name param …) body …)', 'Shorthand for (define name (lambda (param …) body …)).'],
  'internal-define': ['define', '(lambda (…) (define x …) … body …)', 'Leading definitions in a body, lowered to letrec-style bindings.'],
};

function formEntries(): Entry[] {
  const out: Entry[] = [];
  for (const id of SOURCE_FRONTEND.source_forms.core) {
    const [keyword, syntax, summary] = CORE_SYNTAX[id] ?? ['', '', ''];
    out.push({ name: id, class: 'core', keyword: keyword || null, syntax, summary });
  }
  for (const id of SOURCE_FRONTEND.source_forms.derived) {
    const [keyword, syntax, summary] = DERIVED_SYNTAX[id] ?? ['', '', ''];
    out.push({ name: id, class: 'derived', lowered_to: 'core forms', keyword, syntax, summary });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// procedures (the 205 rows of primitive-capabilities.v2)

const DEPRECATION: Record<string, string> = { '%': 'W330', 'list-first': 'W331', 'list-rest': 'W331' };

function procedureEntries(): Entry[] {
  const rows = rowsAsObjects(PRIMITIVE_CAPABILITIES);
  const groups = new Map<string, string[]>();
  for (const row of rows) {
    const group = row.runtime_identity_group as string;
    groups.set(group, [...(groups.get(group) ?? []), row.guest_name as string]);
  }
  const registry = primitiveTable();
  return rows.map((row) => {
    const name = row.guest_name as string;
    const intrinsic = row.intrinsic_id as string;
    return {
      name,
      family: intrinsic.split('/')[0]!,
      capability_id: row.capability_id,
      intrinsic_id: intrinsic,
      runtime_identity_group: row.runtime_identity_group,
      same_runtime_identity_as: (groups.get(row.runtime_identity_group as string) ?? []).filter((n) => n !== name),
      arity: row.arity,
      argument_codecs: row.argument_codecs,
      result_codec: row.result_codec,
      value_cardinality: row.value_cardinality,
      diagnostic_family: row.diagnostic_family,
      determinism_class: row.determinism_class,
      may_call_guest_procedure: row.may_call_guest_procedure,
      logical_cost_model: row.logical_cost_model,
      deprecated_warning: DEPRECATION[name] ?? null,
      implemented: registry.has(name),
    };
  });
}

// ---------------------------------------------------------------------------------------------
// reader

const DATUM_EXAMPLES: Record<string, string> = {
  boolean: '#t #f #true #false',
  integer: '0 -17 123456789012345678901234567890 #x1F #b101',
  rational: '1/3 -22/7',
  'finite-real': '3.14 -0.5 1e10 .5',
  character: '#\\a #\\space #\\newline #\\x3bb',
  string: '"line\\n" "tab\\t" "quote\\"" "\\x3bb;"',
  symbol: 'foo list->vector <=?',
  'proper-list': '(1 2 3) ()',
  'dotted-list': '(1 . 2) (1 2 . 3)',
  vector: '#(1 "two" #\\3)',
  bytevector: '#u8(0 127 255)',
  'quote-shorthand': "'datum",
  'quasiquote-shorthand': '`template',
  'unquote-shorthand': ',expression',
  'unquote-splicing-shorthand': ',@expression',
};
const COMMENT_SYNTAX: Record<string, string> = { 'line-semicolon': '; to end of line', 'nestable-block': '#| … |# (nestable)' };

function readerEntries(): Entry[] {
  return [
    ...SOURCE_FRONTEND.reader.comments.map((id) => ({ name: id, kind: 'comment', syntax: COMMENT_SYNTAX[id] ?? '' })),
    ...SOURCE_FRONTEND.reader.datums.map((id) => ({ name: id, kind: 'datum', examples: DATUM_EXAMPLES[id] ?? '' })),
    { name: 'datum-comment', kind: 'forbidden', syntax: '#;', diagnostic: SOURCE_FRONTEND.reader.datum_comment },
  ];
}

// ---------------------------------------------------------------------------------------------
// resources

const BOUND_ENTRIES: Array<{ name: BoundName; limit: number; unit: string; applies_to: string }> = [
  { name: 'source', limit: FIXED_BOUNDS.sourceBytes, unit: 'bytes', applies_to: 'source of lispex_eval and lispex_compare_routes (UTF-8)' },
  {
    name: 'input-datum',
    limit: FIXED_BOUNDS.inputDatumBytes,
    unit: 'bytes',
    applies_to: 'input of lispex_eval and lispex_compare_routes (UTF-8)',
  },
  { name: 'evaluation-result', limit: FIXED_BOUNDS.evalResultBytes, unit: 'bytes', applies_to: 'one lispex.mcp-eval-result/v1 as JSON' },
  {
    name: 'comparison-result',
    limit: FIXED_BOUNDS.comparisonResultBytes,
    unit: 'bytes',
    applies_to: 'one lispex.mcp-route-comparison-result/v1 as JSON',
  },
  {
    name: 'diagnostics-and-warnings',
    limit: FIXED_BOUNDS.diagnosticsAndWarnings,
    unit: 'records',
    applies_to: 'diagnostics plus warnings of one observation',
  },
  {
    name: 'evaluation-wall-clock',
    limit: FIXED_BOUNDS.evalWallClockMs,
    unit: 'ms',
    applies_to: 'one route evaluation (the worker is terminated when it runs out)',
  },
  { name: 'comparison-wall-clock', limit: FIXED_BOUNDS.comparisonWallClockMs, unit: 'ms', applies_to: 'one whole comparison' },
];

function resourceEntries(): Entry[] {
  const profile = mcpResourceProfile();
  const axes = METER_MANIFEST.axes.map((axis) => ({
    name: axis.axis_id,
    kind: 'meter-axis',
    limit_field: axis.limit_field,
    limit: profile.limits[axis.limit_field],
    usage_field: axis.usage_field,
    tariff: axis.tariff,
    exhaustion_code: axis.exhaustion_code,
  }));
  return [
    {
      name: profile.id,
      kind: 'resource-profile',
      purpose: profile.purpose,
      limits: profile.limits,
      meter_id: METER_MANIFEST.meter_id,
      meter_manifest_id: METER_MANIFEST.manifest_id,
    },
    ...axes,
    {
      name: 'non-tail-call-depth',
      kind: 'host-safety-limit',
      diagnostic_code: 'recursion-limit',
      threshold: 'backend-specific; reported per observation as metrics.call_depth_limit',
      exit_status: 2,
    },
    ...BOUND_ENTRIES.map((b) => ({ ...b, kind: 'mcp-fixed-bound' })),
  ];
}

// ---------------------------------------------------------------------------------------------
// routes and courts

function routeEntries(products: StartupProducts): Entry[] {
  const routes: Entry[] = [
    {
      name: 'tree',
      kind: 'route',
      available: true,
      role: 'rust-tree',
      implementation: 'built-in tree evaluator over the normalized core tree (TypeScript, in a worker thread)',
      used_by: ['lispex_eval', 'court tree-rust'],
    },
    {
      name: 'vm',
      kind: 'route',
      available: true,
      role: 'rust-vm',
      implementation: "built-in bytecode compiler and VM (TypeScript, in a worker thread); fills the court's Rust VM member",
      opcodes: PROFILE_SURFACE.bytecode.opcodes,
      used_by: ['court tree-rust'],
    },
    {
      name: 'topaz-vm',
      kind: 'route',
      available: products.topazVm !== undefined,
      role: 'topaz-vm',
      implementation: products.topazVm !== undefined ? 'Topaz VM product (lispex.external-backend-protocol/v1)' : null,
      startup_option: '--topaz-vm',
      configured: products.topazVm !== undefined,
      note: 'external route: runs the bytecode derivation in the product given by --topaz-vm; without it, courts that need it answer court_available: false',
    },
    {
      name: 'fresh-aot',
      kind: 'route',
      available: products.topazCompiler !== undefined && products.rustTools !== undefined,
      role: 'fresh-aot',
      implementation:
        products.topazCompiler !== undefined && products.rustTools !== undefined
          ? 'one product per request, built by --topaz-compiler with --rust-tools in a private workspace'
          : null,
      startup_option: '--topaz-compiler with --rust-tools',
      configured: products.topazCompiler !== undefined && products.rustTools !== undefined,
      note: 'external route: without its startup options, courts that need it answer court_available: false',
    },
  ];
  const courts = COURTS.map((court) => {
    const availability = courtAvailability(court.court, products);
    return {
      name: court.court,
      kind: 'court',
      members: court.members,
      startup_prerequisite: court.prerequisite,
      available: availability.available,
      unavailable_reason: availability.reason?.code ?? null,
    };
  });
  return [...routes, ...courts];
}

// ---------------------------------------------------------------------------------------------

export interface ReferenceContext {
  readonly products: StartupProducts;
}

function entriesOf(topic: ReferenceTopic, context: ReferenceContext): Entry[] {
  switch (topic) {
    case 'forms':
      return formEntries();
    case 'procedures':
      return procedureEntries();
    case 'reader':
      return readerEntries();
    case 'resources':
      return resourceEntries();
    case 'routes':
      return routeEntries(context.products);
  }
}

/** A short listing per topic: full entries for small topics, name/family/arity for procedures. */
function listingOf(topic: ReferenceTopic, entries: Entry[]): unknown[] {
  if (topic !== 'procedures') return entries;
  return entries.map((e) => ({ name: e.name, family: e.family, arity: e.arity }));
}

export function profileIdentity(): {
  id: string;
  product_version: string;
  language_contract: string;
  resource_profile: string;
  resource_purpose: string;
} {
  const resource = mcpResourceProfile();
  return {
    id: PROFILE.id,
    product_version: PROFILE.product_version,
    language_contract: PROFILE.language_contract,
    resource_profile: resource.id,
    resource_purpose: resource.purpose,
  };
}

export function referenceAnswer(
  topic: ReferenceTopic | undefined,
  name: string | undefined,
  context: ReferenceContext,
): Record<string, unknown> {
  const base = { schema: 'lispex.mcp-reference-result/v1', profile: profileIdentity() };
  if (topic === undefined) {
    return {
      ...base,
      topic: null,
      name: null,
      known: true,
      topics: REFERENCE_TOPICS.map((t) => ({ topic: t, names: entriesOf(t, context).length })),
      registry: {
        ...PROFILE_SURFACE.denominator,
        diagnostic_catalog: DIAGNOSTIC_CATALOG.schema,
        primitive_capabilities: PRIMITIVE_CAPABILITIES.schema,
      },
    };
  }
  const entries = entriesOf(topic, context);
  if (name === undefined) {
    const extra = topic === 'forms' ? { reserved_names: [...RESERVED_NAMES].sort() } : {};
    return { ...base, topic, name: null, known: true, count: entries.length, entries: listingOf(topic, entries), ...extra };
  }
  const entry = entries.find((e) => e.name === name);
  if (entry === undefined) return { ...base, topic, name, known: false };
  return { ...base, topic, name, known: true, entry };
}
