// zod schemas of the two results, exact (strict objects), so the service can validate what it
// returns and generate its OpenAPI document from the same definitions.
import { z } from 'zod';
import { SYMBOL_FORMATS } from './symbol-table.js';

const Address = z.number().int().min(0).max(0xffff);
const AddressHex = z.string().regex(/^\$[0-9A-F]{4}$/);

export const ResolvedSymbolSchema = z.strictObject({
  name: z.string(),
  address: Address,
  address_hex: AddressHex,
  offset: z.number().int().min(0),
  scope: z.string().nullable(),
  segment: z.string().nullable(),
  format: z.enum(SYMBOL_FORMATS),
  file: z.string().nullable(),
});

export const ResolverResultSchema = z.strictObject({
  resolver_schema_version: z.literal(2),
  result: z.enum(['resolved', 'ambiguous', 'unmapped', 'unavailable']),
  address: Address,
  address_hex: AddressHex,
  context: z.string().nullable(),
  symbols: z.array(ResolvedSymbolSchema),
  segment: z.strictObject({ name: z.string(), start: Address, end: Address, offset: z.number().int().min(0) }).nullable(),
  reason: z.string().nullable(),
});

const SizeDifferenceShape = {
  name: z.string(),
  baseline_size: z.number().int().nullable(),
  candidate_size: z.number().int().nullable(),
  delta: z.number().int(),
};
const NumberDifferenceSchema = z.strictObject({
  field: z.string(),
  baseline: z.number().nullable(),
  candidate: z.number().nullable(),
  delta: z.number().nullable(),
});

export const RunComparisonSchema = z.strictObject({
  comparison_schema_version: z.literal(1),
  result: z.enum(['compared', 'unavailable', 'incompatible']),
  baseline_run_id: z.string(),
  candidate_run_id: z.string(),
  context: z.string().nullable(),
  reason: z.string().nullable(),
  outcome: z.strictObject({ baseline: z.string(), candidate: z.string(), changed: z.boolean() }),
  artifact: z.strictObject({ baseline_sha256: z.string().nullable(), candidate_sha256: z.string().nullable(), identical: z.boolean() }),
  timing: z.array(NumberDifferenceSchema).nullable(),
  budget: z.array(NumberDifferenceSchema).nullable(),
  sizes_from: z.enum(['ld65-map', 'labels']).nullable(),
  sections: z.array(z.strictObject(SizeDifferenceShape)).nullable(),
  objects: z.array(z.strictObject(SizeDifferenceShape)).nullable(),
  symbols: z
    .array(z.strictObject({ ...SizeDifferenceShape, baseline_address: Address.nullable(), candidate_address: Address.nullable() }))
    .nullable(),
  unchanged_symbols: z.number().int().min(0).nullable(),
  behaviour: z.strictObject({
    targets: z.strictObject({ baseline: z.string(), candidate: z.string() }),
    same: z.boolean(),
    differences: z.array(z.strictObject({ field: z.string(), baseline: z.unknown(), candidate: z.unknown() })),
  }),
});
