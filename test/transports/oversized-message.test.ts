// A message over the line cap (32 MiB) is answered with a JSON-RPC error naming the limit and
// carrying the request's id when that id is in the message's first KiB; otherwise the session's
// answer has `id: null` (docs/ARCHITECTURE.md, the core). Before, every oversized message was
// answered with `id: null`, so the client waited for its request's answer for ever.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { DEFAULT_MAX_LINE_BYTES } from '../../transports/ndjson.js';
import { OversizedRequestAnswered, requestIdOf } from '../../transports/oversized-request.js';
import { StreamTransport } from '../../transports/stream.js';
import { MessageTooLargeError } from '../../transports/transport.js';
import { binCommand } from '../helpers/bin.js';

describe('requestIdOf: the id of a request from its first bytes', () => {
  test('a number or string id at the top level, wherever among the keys before the bytes run out', () => {
    assert.equal(requestIdOf('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"aaaa'), 7);
    assert.equal(requestIdOf('{ "method" : "x", "params": {"id": 1, "a": [1, {"id": 2}], "s": "}\\"{"}, "id": "r-9", "more": "aa'), 'r-9');
    assert.equal(requestIdOf('{"id":"\\u0041\\"b","method":"x"'), 'A"b');
    assert.equal(requestIdOf('\n {"id":0,"params":'), 0);
  });

  test('no answerable id: none, nested only, cut by the end, null, a response, not an object', () => {
    assert.equal(requestIdOf('{"jsonrpc":"2.0","method":"x","params":{"id":3,"data":"aaaa'), undefined);
    assert.equal(requestIdOf('{"jsonrpc":"2.0","id":12'), undefined, '12 may go on (123…)');
    assert.equal(requestIdOf('{"jsonrpc":"2.0","id":"abc'), undefined);
    assert.equal(requestIdOf('{"jsonrpc":"2.0","id":null,"method":"x"'), undefined);
    assert.equal(requestIdOf('{"jsonrpc":"2.0","id":4,"result":{"content":"aaa'), undefined);
    assert.equal(requestIdOf('{"jsonrpc":"2.0","id":4,"error":{"code":1'), undefined);
    assert.equal(requestIdOf('[{"id":1}'), undefined);
    assert.equal(requestIdOf(''), undefined);
  });
});

describe('StreamTransport and an oversized line', () => {
  function wire(maxLineBytes: number) {
    const input = new PassThrough();
    const output = new PassThrough();
    const transport = new StreamTransport(input, output, { maxLineBytes });
    const written: any[] = [];
    const errors: Error[] = [];
    const messages: any[] = [];
    output.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n')) if (line) written.push(JSON.parse(line));
    });
    transport.onerror = (e) => errors.push(e);
    transport.onmessage = (m) => messages.push(m);
    return { input, transport, written, errors, messages };
  }

  test('a request with a readable id is answered with that id as its line passes the cap, before it ends', async () => {
    const w = wire(1000);
    await w.transport.start();
    w.input.write('{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"data":"');
    w.input.write('a'.repeat(2000));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(w.written, [
      {
        jsonrpc: '2.0',
        id: 'big',
        error: {
          code: -32600,
          message: 'Invalid Request: message exceeds the maximum line size of 1000 bytes and was discarded',
          data: { limitBytes: 1000 },
        },
      },
    ]);
    assert.ok(w.errors[0] instanceof OversizedRequestAnswered);
    assert.ok(!(w.errors[0] instanceof MessageTooLargeError), 'the session is not asked to answer it again');
    w.input.write(`${'a'.repeat(5000)}"}}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n`);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(w.messages, [{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
    assert.equal(w.written.length, 1);
  });

  test('an id past the first KiB cannot be read: the session is told (MessageTooLargeError) and answers it', async () => {
    const w = wire(4000);
    await w.transport.start();
    w.input.write(`{"jsonrpc":"2.0","method":"x","params":{"data":"${'a'.repeat(5000)}"},"id":5}\n`);
    await new Promise((r) => setImmediate(r));
    assert.equal(w.written.length, 0);
    assert.equal(w.errors.length, 1);
    assert.ok(w.errors[0] instanceof MessageTooLargeError);
  });
});

describe('a real server and a 33 MiB line', () => {
  test('lispex mcp serve answers the request with its id and the limit, then serves on', async () => {
    const { command, args } = binCommand('lispex', ['mcp', 'serve']);
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    try {
      const answers = new Map<unknown, any>();
      const waiters: Array<() => void> = [];
      let buf = '';
      child.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
          const m = JSON.parse(buf.slice(0, i));
          buf = buf.slice(i + 1);
          answers.set(m.id, m);
        }
        for (const w of waiters.splice(0)) w();
      });
      /** The answer with this id; a bounded wait (before the fix, id 7 was never answered). */
      const answer = async (id: unknown) => {
        const deadline = Date.now() + 60_000;
        while (!answers.has(id)) {
          if (Date.now() > deadline) throw new Error(`no answer with id ${String(id)}; answers: ${JSON.stringify([...answers.values()])}`);
          await new Promise<void>((r) => {
            waiters.push(r);
            setTimeout(r, 1000);
          });
        }
        return answers.get(id);
      };
      const send = (text: string) => new Promise<void>((r) => child.stdin.write(text, () => r()));
      await send(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
      );
      await answer(1);
      const pad = 'a'.repeat(33 * 1024 * 1024);
      await send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"lispex_eval","arguments":{"source":"${pad}"}}}\n`);
      await send(`${JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'ping' })}\n`);
      const big = await answer(7);
      assert.equal(big.error.code, -32600);
      assert.match(big.error.message, new RegExp(`maximum line size of ${DEFAULT_MAX_LINE_BYTES} bytes \\(32 MiB\\)`));
      assert.deepEqual((await answer(8)).result, {});
    } finally {
      child.kill();
    }
  });
});
