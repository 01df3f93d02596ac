// ToolRegistry envelopes: a registry can shape success and every failure path; the output schema
// is enforced for every protocol version and attached only where the version has it; a handler's
// return type is checked against its output schema by the compiler.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import {
  McpClient,
  McpServer,
  type ResultEnvelope,
  ToolError,
  TEXT_COPY_MAX_BYTES,
  ToolRegistry,
  createLogger,
  parseToolPayload,
  toolResult,
} from '../../src/index.js';
import { InMemoryTransport } from '../../transports/index.js';

const quiet = createLogger('test', 'error');

async function pair(tools: ToolRegistry, protocolVersion?: string) {
  const server = new McpServer({ name: 's', version: '1', tools, logger: quiet });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new McpClient({ name: 'c', version: '1' }, { protocolVersion, logger: quiet });
  await client.connect(a);
  return client;
}

/** A small envelope in the style of the Ultimate adapter's: {v, op, data} | {v, op, error}. */
const envelope: ResultEnvelope = {
  outputSchema: (data) =>
    z.strictObject({
      v: z.literal(1),
      op: z.string(),
      data: (data ?? z.unknown()).optional(),
      error: z.strictObject({ code: z.string(), message: z.string() }).optional(),
    }),
  success: (op, data) => ({ v: 1, op, data }),
  failure(op, failure) {
    switch (failure.kind) {
      case 'invalid-arguments':
        return { v: 1, op, error: { code: 'invalid-arguments', message: failure.message } };
      case 'tool-error':
        return { v: 1, op, error: { code: String(failure.error.details.code ?? 'tool'), message: failure.error.message } };
      case 'error-result':
        return { v: 1, op, error: { code: 'error-result', message: JSON.stringify(failure.payload) } };
      case 'invalid-output':
        return { v: 1, op, error: { code: 'invalid-output', message: failure.message } };
      case 'cancelled':
        return { v: 1, op, error: { code: 'cancelled', message: 'cancelled' } };
      case 'internal':
        return { v: 1, op, error: { code: 'internal', message: `internal error in ${op}` } };
    }
  },
  structuredFailures: true,
};

function enveloped(): ToolRegistry {
  return new ToolRegistry({ envelope })
    .define({
      name: 'ok',
      description: '',
      input: z.strictObject({ n: z.number().int() }),
      output: z.strictObject({ doubled: z.number() }),
      handler: ({ n }) => ({ doubled: n * 2 }),
    })
    .define({
      name: 'picture',
      description: '',
      input: z.strictObject({}),
      output: z.strictObject({ name: z.string() }),
      handler: () => toolResult({ name: 'p.png' }, { extraContent: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] }),
    })
    .define({
      name: 'refuses',
      description: '',
      input: z.strictObject({}),
      output: z.strictObject({}),
      handler: () => {
        throw new ToolError('no such run', { code: 'not-found' });
      },
    })
    .define({
      name: 'crashes',
      description: '',
      input: z.strictObject({}),
      output: z.strictObject({}),
      handler: () => {
        throw new Error('secret detail');
      },
    })
    .define({
      name: 'lies',
      description: '',
      input: z.strictObject({}),
      output: z.strictObject({ n: z.number() }),
      handler: () => ({ n: 'x' }) as unknown as { n: number },
    });
}

test('an envelope shapes success and every failure path, as text and structuredContent', { timeout: 30_000 }, async () => {
  const client = await pair(enveloped(), '2025-06-18');
  const ok = await client.callTool('ok', { n: 2 });
  assert.equal(ok.isError, false);
  assert.deepEqual(ok.structuredContent, { v: 1, op: 'ok', data: { doubled: 4 } });
  assert.deepEqual(parseToolPayload(ok), ok.structuredContent, 'the text is the same JSON');

  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['ok', { n: 'two' }, 'invalid-arguments'],
    ['ok', { n: 1, extra: true }, 'invalid-arguments'],
    ['refuses', {}, 'not-found'],
    ['crashes', {}, 'internal'],
    ['lies', {}, 'invalid-output'],
  ];
  for (const [name, args, code] of cases) {
    const r = await client.callTool(name, args);
    assert.equal(r.isError, true, name);
    const payload = r.structuredContent as { v: number; op: string; error: { code: string; message: string } };
    assert.equal(payload.v, 1);
    assert.equal(payload.op, name);
    assert.equal(payload.error.code, code, `${name} ${JSON.stringify(args)}`);
    assert.deepEqual(parseToolPayload(r), payload);
    assert.doesNotMatch(JSON.stringify(r), /secret detail/);
  }
  const bad = await client.callTool('ok', { n: 'two' });
  assert.match((bad.structuredContent as { error: { message: string } }).error.message, /n: .*expected number/i);
});

test('extra content (an image) follows the JSON text', { timeout: 30_000 }, async () => {
  const client = await pair(enveloped(), '2025-11-25');
  const r = await client.callTool('picture', {});
  assert.equal(r.content.length, 2);
  assert.deepEqual(r.content[1], { type: 'image', data: 'AAAA', mimeType: 'image/png' });
  assert.deepEqual(parseToolPayload(r), { v: 1, op: 'picture', data: { name: 'p.png' } });
});

test('the output schema is enforced for every protocol version, attached only from 2025-06-18', { timeout: 30_000 }, async () => {
  const old = await pair(enveloped(), '2024-11-05');
  const list = await old.listTools();
  assert.equal(list[0]!.outputSchema, undefined);
  const ok = await old.callTool('ok', { n: 3 });
  assert.equal(ok.structuredContent, undefined);
  assert.deepEqual(parseToolPayload(ok), { v: 1, op: 'ok', data: { doubled: 6 } });
  const lies = await old.callTool('lies', {});
  assert.equal(lies.isError, true, 'a result outside the schema is refused on 2024-11-05 too');
  assert.equal(lies.structuredContent, undefined);
  assert.equal((parseToolPayload(lies) as { error: { code: string } }).error.code, 'invalid-output');

  const plain = new ToolRegistry().define({
    name: 'lies',
    description: '',
    input: z.object({}),
    output: z.object({ n: z.number() }),
    handler: () => ({ n: 'x' }) as unknown as { n: number },
  });
  const r = await (await pair(plain, '2024-11-05')).callTool('lies', {});
  assert.equal(r.isError, true);
  assert.match((parseToolPayload(r) as { error: string }).error, /does not match its output schema/);
});

test('the announced outputSchema is the envelope around the data schema', { timeout: 30_000 }, async () => {
  const client = await pair(enveloped(), '2025-06-18');
  const ok = (await client.listTools()).find((t) => t.name === 'ok')!;
  const schema = ok.outputSchema as { type: string; properties: Record<string, { properties?: Record<string, unknown> }> };
  assert.equal(schema.type, 'object');
  assert.deepEqual(Object.keys(schema.properties).sort(), ['data', 'error', 'op', 'v']);
  assert.ok(schema.properties.data?.properties?.doubled);
});

test('mounted into a plain registry, tools keep their envelope', { timeout: 30_000 }, async () => {
  const plain = new ToolRegistry().define({
    name: 'classic',
    description: '',
    input: z.object({}),
    handler: () => {
      throw new ToolError('nope', { code: 'x' });
    },
  });
  plain.mount(enveloped());
  const client = await pair(plain, '2025-06-18');
  assert.deepEqual(parseToolPayload(await client.callTool('classic', {})), { error: 'nope', code: 'x' });
  assert.deepEqual(parseToolPayload(await client.callTool('ok', { n: 1 })), { v: 1, op: 'ok', data: { doubled: 2 } });
});

test('a handler whose return type does not match its output schema does not compile', { timeout: 30_000 }, () => {
  // Checked by `tsc --noEmit -p .` (the CI type-check): each @ts-expect-error must see an error.
  new ToolRegistry().define({
    name: 'typed',
    description: '',
    input: z.object({}),
    output: z.object({ n: z.number() }),
    // @ts-expect-error a string where the schema says number
    handler: () => ({ n: 'x' }),
  });
  new ToolRegistry().define({
    name: 'typed-async',
    description: '',
    input: z.object({}),
    output: z.object({ n: z.number() }),
    // @ts-expect-error a missing field, through a promise
    handler: async () => ({}),
  });
  new ToolRegistry().define({
    name: 'typed-result',
    description: '',
    input: z.object({}),
    output: z.object({ n: z.number() }),
    // @ts-expect-error toolResult carries the payload type too
    handler: () => toolResult({ n: false }),
  });
  // Without an output schema anything JSON goes.
  new ToolRegistry().define({ name: 'free', description: '', input: z.object({}), handler: () => ({ anything: 1 }) });
});

test('a result over TEXT_COPY_MAX_BYTES goes out whole as structuredContent and as a short note in text; older versions get the whole text', {
  timeout: 30_000,
}, async () => {
  const big = '"'.repeat(TEXT_COPY_MAX_BYTES); // every quote is escaped: ~2 MiB of JSON
  const tools = new ToolRegistry().define({
    name: 'big',
    description: 'a large result',
    input: z.object({ small: z.boolean() }),
    output: z.object({ text: z.string() }),
    handler: ({ small }) => ({ text: small ? 'tiny' : big }),
  });
  const current = await pair(tools);
  const r = await current.callTool('big', { small: false });
  assert.equal(r.isError, false);
  assert.equal((r.structuredContent as { text: string }).text, big);
  const note = JSON.parse((r.content[0] as { text: string }).text);
  assert.equal(note.text_copy, 'omitted');
  assert.equal(note.structured_content_bytes, Buffer.byteLength(JSON.stringify({ text: big })));
  assert.deepEqual(parseToolPayload(r), { text: big });
  // Small results keep their full text copy.
  const small = await current.callTool('big', { small: true });
  assert.deepEqual(JSON.parse((small.content[0] as { text: string }).text), { text: 'tiny' });
  // Before 2025-06-18 the text is the only copy: always whole.
  const old = await pair(tools, '2024-11-05');
  const o = await old.callTool('big', { small: false });
  assert.equal(o.structuredContent, undefined);
  assert.deepEqual(JSON.parse((o.content[0] as { text: string }).text), { text: big });
});
