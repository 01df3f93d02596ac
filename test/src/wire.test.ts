// Wire-level behaviour that an MCP client library would hide: exact progress sequence, request
// id 0 cancelled with no response, a cancelled request never answered.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { RawWire } from '../helpers/raw-wire.js';
import { binCommand } from '../helpers/bin.js';

let wire: RawWire;
before(() => {
  const { command, args } = binCommand('mcp-engines', ['example']);
  wire = RawWire.spawn(command, args);
});
after(() => wire.close());

test('progress: every step, in order, before the result', async () => {
  wire.drain();
  wire.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'slow', arguments: { steps: 3, interval_ms: 1 }, _meta: { progressToken: 'tok' } },
  });
  await wire.waitFor((m) => m.id === 1);
  const got = wire.drain();
  assert.deepEqual(
    got.map((m) => (m.method ? `progress ${m.params.progressToken} ${m.params.progress}/${m.params.total}` : `result ${m.id}`)),
    ['progress tok 1/3', 'progress tok 2/3', 'progress tok 3/3', 'result 1'],
  );
});

test('no progress notifications without a progress token', async () => {
  wire.drain();
  wire.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow', arguments: { steps: 2, interval_ms: 1 } } });
  await wire.waitFor((m) => m.id === 2);
  assert.deepEqual(
    wire.drain().map((m) => m.id),
    [2],
  );
});

for (const id of [0, 'zero']) {
  test(`cancelling request id ${JSON.stringify(id)}: no response, and the server goes on`, async () => {
    wire.drain();
    wire.send({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'slow', arguments: { steps: 10_000, interval_ms: 1 }, _meta: { progressToken: 'c' } },
    });
    // The call is running once its first progress arrives.
    await wire.waitFor((m) => m.method === 'notifications/progress' && m.params.progressToken === 'c');
    wire.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'test' } });
    // The abort reaches the handler as soon as the notification is read; it stops at its next
    // step. A ping answered after the cancel shows the server alive; the absence of any response
    // for the cancelled id is checked on everything received up to a second ping sent after the
    // progress stopped.
    wire.send({ jsonrpc: '2.0', id: 'p1', method: 'ping' });
    await wire.waitFor((m) => m.id === 'p1');
    const progressBefore = wire.received.filter((m) => m.method).length;
    wire.send({ jsonrpc: '2.0', id: 'p2', method: 'ping' });
    await wire.waitFor((m) => m.id === 'p2');
    const all = wire.drain();
    assert.equal(all.filter((m) => m.id === id).length, 0, 'a cancelled request gets no response');
    // At most one step was in progress when the cancel arrived.
    assert.ok(all.filter((m) => m.method).length <= progressBefore + 1);
    assert.ok(all.filter((m) => m.method).length < 10_000);
  });
}
