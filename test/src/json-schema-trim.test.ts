// The two tools/list schema trims of the core: compactJsonSchema drops only what zod emits that
// constrains nothing (every other bound, const and enum stays, also inside values), and
// outlineJsonSchema keeps the schema and `depth` levels of properties whole, then only kinds and
// fixed values — always removing, never adding.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { compactJsonSchema, outlineJsonSchema } from '../../src/index.js';

const emitted = (t: z.ZodType) => {
  const { $schema: _dropped, ...schema } = z.toJSONSchema(t, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
  return schema;
};

test('compactJsonSchema drops safe-integer bounds, empty additionalProperties and string propertyNames only', () => {
  const schema = emitted(
    z.object({
      count: z.number().int(),
      port: z.number().int().min(1).max(65535),
      extra: z.record(z.string(), z.unknown()),
      open: z.looseObject({ a: z.string() }),
      fixed: z.literal(9007199254740991),
      closed: z.strictObject({ b: z.boolean() }),
    }),
  );
  assert.equal(JSON.stringify(schema).includes('9007199254740991'), true);
  const compact = compactJsonSchema(schema);
  assert.deepEqual(compact, {
    type: 'object',
    properties: {
      count: { type: 'integer' },
      port: { type: 'integer', minimum: 1, maximum: 65535 },
      extra: { type: 'object' },
      open: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      fixed: { type: 'number', const: 9007199254740991 },
      closed: { type: 'object', properties: { b: { type: 'boolean' } }, required: ['b'], additionalProperties: false },
    },
    required: ['count', 'port', 'extra', 'open', 'fixed', 'closed'],
    additionalProperties: false,
  });
});

test('outlineJsonSchema: whole to the depth, then kinds and fixed values; nullable kinds as a type list', () => {
  const schema = compactJsonSchema(
    emitted(
      z.strictObject({
        version: z.literal(13),
        job: z.strictObject({ id: z.string().min(1), state: z.enum(['queued', 'done']), runs: z.array(z.string()) }),
        next: z.string().max(10).nullable(),
        list: z.array(z.strictObject({ n: z.number() })),
      }),
    ),
  );
  assert.deepEqual(outlineJsonSchema(schema, 0), {
    type: 'object',
    properties: {
      version: { const: 13 },
      job: { type: 'object' },
      next: { type: ['string', 'null'] },
      list: { type: 'array' },
    },
    required: ['version', 'job', 'next', 'list'],
    additionalProperties: false,
  });
  const deeper = outlineJsonSchema(schema, 1) as { properties: Record<string, unknown> };
  assert.deepEqual(deeper.properties.job, {
    type: 'object',
    properties: { id: { type: 'string' }, state: { enum: ['queued', 'done'] }, runs: { type: 'array' } },
    required: ['id', 'state', 'runs'],
    additionalProperties: false,
  });
  assert.deepEqual(deeper.properties.next, { anyOf: [{ type: 'string', maxLength: 10 }, { type: 'null' }] });
  assert.deepEqual(deeper.properties.list, { type: 'array', items: { type: 'object' } });
});
