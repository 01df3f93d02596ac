// The example server is what newcomers copy: it must not leak listeners on a long slow call.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createEchoServer } from '../../examples/echo-server.js';
import { InMemoryTransport } from '../../transports/index.js';

test('slow with many steps adds one abort listener at a time (no MaxListenersExceededWarning)', async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  process.on('warning', onWarning);
  try {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createEchoServer().connect(serverSide);
    const client = new Client({ name: 'echo-test', version: '1' });
    await client.connect(clientSide);
    const result = await client.callTool({ name: 'slow', arguments: { steps: 40, interval_ms: 0 } }, undefined, {
      onprogress: () => {},
    });
    assert.notEqual(result.isError, true);
    assert.deepEqual(result.structuredContent ?? JSON.parse((result.content as { text: string }[])[0]?.text ?? 'null'), { steps: 40 });
    // Warnings are emitted on the next tick; let one pass before looking.
    await new Promise<void>((r) => setImmediate(r));
    assert.deepEqual(
      warnings.filter((w) => w.includes('MaxListeners')),
      [],
    );
    await client.close();
  } finally {
    process.off('warning', onWarning);
  }
});
