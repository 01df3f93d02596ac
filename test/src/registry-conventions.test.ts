// Two conventions the registry enforces for every server: schemas are zod 4 (a zod 3 schema is
// refused where it is passed, with what to do instead), and an engine's EngineError thrown by a
// handler becomes an isError result carrying its stable code (mapped in one place).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { EngineError } from '../../common/engine-error.js';
import { InMemoryTransport } from '../../transports/index.js';
import { McpClient, McpServer, ToolRegistry } from '../../src/index.js';

test('define() refuses a zod 3 schema with a message that says what to use instead', () => {
  const registry = new ToolRegistry();
  assert.throws(
    () => registry.define({ name: 'old', description: 'x', input: z3.object({ a: z3.string() }) as never, handler: () => ({}) }),
    /tool old: input: this is a zod 3 schema; mcp-engines needs zod 4/,
  );
  assert.throws(
    () => registry.define({ name: 'weird', description: 'x', input: { type: 'object' } as never, handler: () => ({}) }),
    /expected a zod 4 schema/,
  );
});

class DemoEngineError extends EngineError {
  readonly engine = 'demo';
  constructor(
    readonly kind: 'busy' | 'gone',
    message: string,
  ) {
    super(message);
  }
  get errorCode(): string {
    return this.kind;
  }
  override wireDetails(): Record<string, unknown> {
    return { engine: this.engine };
  }
}

test('an EngineError thrown by a handler is an isError result with its code; the server keeps serving', async () => {
  const tools = new ToolRegistry().define({
    name: 'work',
    description: 'fails as an engine would',
    input: z.strictObject({ fail: z.boolean() }),
    handler: ({ fail }) => {
      if (fail) throw new DemoEngineError('busy', 'the engine is busy with another call');
      return { done: true };
    },
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await new McpServer({ name: 't', version: '1', tools }).connect(b);
  const client = new McpClient({ name: 'c', version: '1' });
  await client.connect(a);
  const failed = await client.callTool('work', { fail: true });
  assert.equal(failed.isError, true);
  assert.deepEqual(JSON.parse(String((failed.content[0] as { text: string }).text)), {
    error: 'the engine is busy with another call',
    code: 'busy',
    engine: 'demo',
  });
  const fine = await client.callTool('work', { fail: false });
  assert.notEqual(fine.isError, true);
  await client.close();
});
