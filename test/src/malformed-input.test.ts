// The malformed-input corpus: each case is written raw to a real server process over stdio;
// the server must give exactly the specified answer and keep serving (a ping after every case).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { RawWire } from '../helpers/raw-wire.js';
import { binCommand } from '../helpers/bin.js';

const MAX_LINE = 64 * 1024;
type Expect = { error: number; id: string | number | null } | { result: (r: any) => void; id: string | number } | 'nothing';

const ok = (check: (r: any) => void = () => {}) => check;
const cases: Array<[string, string | Buffer, Expect]> = [
  ['unclosed object', '{', { error: -32700, id: null }],
  ['not JSON at all', 'hello there', { error: -32700, id: null }],
  ['truncated request', '{"jsonrpc":"2.0","id":1,"method":"ping"', { error: -32700, id: null }],
  ['trailing garbage', '{"jsonrpc":"2.0","id":1,"method":"ping"} x', { error: -32700, id: null }],
  ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), { error: -32700, id: null }],
  ['empty batch', '[]', { error: -32600, id: null }],
  ['batch of one', '[{"jsonrpc":"2.0","id":2,"method":"ping"}]', { error: -32600, id: null }],
  ['batch of two', '[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]', { error: -32600, id: null }],
  ['a string', '"ping"', { error: -32600, id: null }],
  ['a number', '42', { error: -32600, id: null }],
  ['null', 'null', { error: -32600, id: null }],
  ['wrong jsonrpc version', '{"jsonrpc":"1.0","id":4,"method":"ping"}', { error: -32600, id: 4 }],
  ['missing jsonrpc', '{"id":5,"method":"ping"}', { error: -32600, id: 5 }],
  ['jsonrpc as a number', '{"jsonrpc":2.0,"id":6,"method":"ping"}', { error: -32600, id: 6 }],
  ['null id', '{"jsonrpc":"2.0","id":null,"method":"ping"}', { error: -32600, id: null }],
  ['object id', '{"jsonrpc":"2.0","id":{},"method":"ping"}', { error: -32600, id: null }],
  ['array id', '{"jsonrpc":"2.0","id":[7],"method":"ping"}', { error: -32600, id: null }],
  ['boolean id', '{"jsonrpc":"2.0","id":true,"method":"ping"}', { error: -32600, id: null }],
  ['method not a string', '{"jsonrpc":"2.0","id":8,"method":5}', { error: -32600, id: 8 }],
  ['empty method', '{"jsonrpc":"2.0","id":9,"method":""}', { error: -32600, id: 9 }],
  ['neither method nor result', '{"jsonrpc":"2.0","id":10}', { error: -32600, id: 10 }],
  [
    'server/discover asking for a version the server does not speak: -32022',
    '{"jsonrpc":"2.0","id":11,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}',
    { error: -32022, id: 11 },
  ],
  [
    'a 2026-07-28 request without its client capabilities',
    '{"jsonrpc":"2.0","id":111,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}',
    { error: -32602, id: 111 },
  ],
  [
    'ping in a 2026-07-28 request: removed in that revision',
    '{"jsonrpc":"2.0","id":112,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}',
    { error: -32601, id: 112 },
  ],
  ['unknown method', '{"jsonrpc":"2.0","id":12,"method":"no/such"}', { error: -32601, id: 12 }],
  ['params as array', '{"jsonrpc":"2.0","id":13,"method":"tools/list","params":[1,2]}', { error: -32602, id: 13 }],
  ['params as string', '{"jsonrpc":"2.0","id":14,"method":"ping","params":"x"}', { error: -32602, id: 14 }],
  ['tools/call without params', '{"jsonrpc":"2.0","id":15,"method":"tools/call"}', { error: -32602, id: 15 }],
  ['tools/call name mistyped', '{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":42}}', { error: -32602, id: 16 }],
  ['tools/call unknown tool', '{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"nope"}}', { error: -32602, id: 17 }],
  [
    'tools/call arguments not an object',
    '{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":"echo","arguments":"x"}}',
    { error: -32602, id: 18 },
  ],
  [
    'tools/call missing required argument',
    '{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":"echo","arguments":{}}}',
    {
      id: 19,
      result: ok((r) => {
        assert.equal(r.isError, true);
        assert.match(r.content[0].text, /text: Invalid input: expected string, received undefined/);
      }),
    },
  ],
  [
    'tools/call mistyped argument',
    '{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"slow","arguments":{"steps":"many"}}}',
    {
      id: 20,
      result: ok((r) => {
        assert.equal(r.isError, true);
        assert.match(r.content[0].text, /steps: Invalid input: expected number/);
      }),
    },
  ],
  [
    'tools/call argument out of range',
    '{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"slow","arguments":{"steps":0}}}',
    {
      id: 21,
      result: ok((r) => {
        assert.equal(r.isError, true);
        assert.match(r.content[0].text, /steps: Too small/);
      }),
    },
  ],
  ['notification sent with an id', '{"jsonrpc":"2.0","id":22,"method":"notifications/initialized"}', { error: -32600, id: 22 }],
  [
    'cancel sent as a request',
    '{"jsonrpc":"2.0","id":23,"method":"notifications/cancelled","params":{"requestId":1}}',
    { error: -32600, id: 23 },
  ],
  ['unknown notification', '{"jsonrpc":"2.0","method":"notifications/whatever"}', 'nothing'],
  ['request without id is a notification', '{"jsonrpc":"2.0","method":"ping"}', 'nothing'],
  ['cancel for an unknown request', '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}', 'nothing'],
  ['unsolicited response', '{"jsonrpc":"2.0","id":24,"result":{}}', 'nothing'],
  ['blank line', '   ', 'nothing'],
  ['oversized line', 'x'.repeat(MAX_LINE * 3), { error: -32600, id: null }],
  ['CRLF line ending', '{"jsonrpc":"2.0","id":25,"method":"ping"}\r', { id: 25, result: ok((r) => assert.deepEqual(r, {})) }],
  ['string id', '{"jsonrpc":"2.0","id":"abc","method":"ping"}', { id: 'abc', result: ok((r) => assert.deepEqual(r, {})) }],
  ['id 0', '{"jsonrpc":"2.0","id":0,"method":"ping"}', { id: 0, result: ok((r) => assert.deepEqual(r, {})) }],
  [
    'unknown protocol version is negotiated, not refused',
    '{"jsonrpc":"2.0","id":26,"method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}',
    { id: 26, result: ok((r) => assert.equal(r.protocolVersion, '2025-11-25')) },
  ],
];

let wire: RawWire;
before(() => {
  const { command, args } = binCommand('mcp-engines', ['example', '--max-line-bytes', String(MAX_LINE)]);
  wire = RawWire.spawn(command, args);
});
after(() => wire.close());

test(`the corpus has at least 30 cases (${cases.length})`, () => {
  assert.ok(cases.length >= 30);
});

let pingId = 1000;
for (const [name, line, expected] of cases) {
  test(`malformed input: ${name}`, async () => {
    wire.drain();
    wire.write(typeof line === 'string' ? `${line}\n` : Buffer.concat([line, Buffer.from('\n')]));
    // Requests are answered asynchronously, so wait for the expected id first; then a ping
    // shows that nothing else was sent and that the server still serves.
    if (expected !== 'nothing' && expected.id !== null) await wire.waitFor((m) => m.id === expected.id);
    const id = pingId++;
    wire.send({ jsonrpc: '2.0', id, method: 'ping' });
    await wire.waitFor((m) => m.id === id);
    const before = wire.drain().filter((m) => m.id !== id);
    if (expected === 'nothing') {
      assert.deepEqual(before, [], 'expected no answer');
    } else if ('error' in expected) {
      assert.equal(before.length, 1, `expected exactly one answer, got ${JSON.stringify(before)}`);
      assert.equal(before[0].jsonrpc, '2.0');
      assert.equal(before[0].id, expected.id);
      assert.equal(before[0].error.code, expected.error);
      assert.equal(typeof before[0].error.message, 'string');
      assert.ok(!('result' in before[0]));
    } else {
      assert.equal(before.length, 1, `expected exactly one answer, got ${JSON.stringify(before)}`);
      assert.equal(before[0].id, expected.id);
      expected.result(before[0].result);
    }
  });
}

test('the server is still alive and serving tools after the whole corpus', async () => {
  wire.send({ jsonrpc: '2.0', id: 'last', method: 'tools/call', params: { name: 'echo', arguments: { text: 'still here' } } });
  const m = await wire.waitFor((x) => x.id === 'last');
  assert.equal(JSON.parse(m.result.content[0].text).text, 'still here');
});
