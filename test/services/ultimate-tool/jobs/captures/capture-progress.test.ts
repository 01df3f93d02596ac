// MCP progress of a capture through the adapter: with a progressToken, start_debug_stream_capture
// reports the datagrams received (of the capture's bound) while the adapter follows the service's
// capture job, all before its answer. Read off the wire of a real adapter process (the official SDK
// client dispatches notifications a microtask late and can drop the last ones: see
// test/adapters/topup/progress.test.ts); the preparation is made through the SDK client.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openRawAdapterWire } from '../../../../helpers/raw-adapter-wire.js';
import { startUltimateStack, type UltimateStack } from '../../../../helpers/ultimate-stack.js';

let stack: UltimateStack;

before(async () => {
  stack = await startUltimateStack('ultimate-capture-progress', ['--capture-max-datagrams', '500', '--capture-max-duration-ms', '5000']);
});
after(async () => {
  await stack?.close();
});

async function data(name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const r = await stack.client.callTool({ name, arguments: args });
  const envelope = (r.structuredContent ?? JSON.parse(String((r.content as Array<{ text: string }>)[0]?.text))) as Record<string, any>;
  assert.ok(envelope.data, `${name}: ${JSON.stringify(envelope.error)}`);
  return envelope.data;
}

test('start_debug_stream_capture with a progressToken: datagrams received, increasing, before the answer', {
  timeout: 60_000,
}, async () => {
  const probe = await data('probe_ultimate');
  const { preparation } = await data('prepare_debug_stream_capture', { probe_id: probe.probe.probe_id, receiver_ipv4: '127.0.0.1' });

  const wire = await openRawAdapterWire(stack.serviceUrl);
  try {
    const { lines } = wire;
    const { at } = await wire.request('tools/call', {
      name: 'start_debug_stream_capture',
      arguments: { preparation_id: preparation.preparation_id, confirmed_stream_start_count: 1, confirmed_stream_stop_count: 1 },
      _meta: { progressToken: 'capture-1' },
    });
    const answer = lines[at]!.result.structuredContent as Record<string, any>;
    assert.ok(answer.data, JSON.stringify(answer.error));
    const progress = lines.slice(0, at).filter((m) => m.method === 'notifications/progress');
    assert.ok(progress.length >= 1, 'at least the final count is reported');
    for (const p of progress) {
      assert.equal(p.params.progressToken, 'capture-1');
      assert.equal(p.params.total, 500);
      assert.match(p.params.message, /datagrams received/);
    }
    const values = progress.map((p) => p.params.progress as number);
    for (let i = 1; i < values.length; i++) assert.ok(values[i]! > values[i - 1]!, `progress increases: ${values.join(', ')}`);
    assert.equal(values.at(-1), answer.data.capture.datagrams, 'the last report is the datagrams the capture holds');
    assert.ok(!lines.slice(at).some((m) => m.method === 'notifications/progress'), 'no progress after the answer');
  } finally {
    wire.close();
  }
});
