// MCP progress from topup, seen by the official SDK client's onprogress: eval_batch reports k of n
// phrases, a long eval reports its elapsed seconds, and cancelling a call that reports progress
// still interrupts it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { binCommand } from '../../helpers/bin.js';
import { connectTopup, payload, tempDir, testEnv, topupVariants } from '../../engines/ocaml/helpers.js';

/** initialize, then one tools/call with progressToken "batch"; every message the server sent, in order, until the answer. */
async function rawExchange(home: string, bin: string, params: Record<string, unknown>): Promise<any[]> {
  const { command, args } = binCommand(bin);
  const child = spawn(command, args, { env: { ...process.env, ...testEnv(home) }, stdio: ['pipe', 'pipe', 'ignore'] });
  const messages: any[] = [];
  try {
    const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { ...params, _meta: { progressToken: 'batch' } } });
    for await (const line of createInterface({ input: child.stdout })) {
      const message = JSON.parse(line);
      if (message.id !== 1) messages.push(message);
      if (message.id === 2) break;
    }
    return messages;
  } finally {
    child.kill('SIGTERM');
  }
}

/** OCaml that keeps the CPU busy for `seconds` of processor time (so at least as long on the wall clock). */
const busyFor = (seconds: number) => `let t0 = Sys.time () in while Sys.time () -. t0 < ${seconds.toFixed(2)} do () done`;

for (const variant of topupVariants()) {
  describe(`topup progress [${variant.bin}]`, () => {
    let client: Client;
    let close: () => Promise<void>;
    const home = tempDir();
    before(async () => {
      ({ client, close } = await connectTopup(testEnv(home.path), [], variant.bin));
    });
    after(async () => {
      await close();
      home.remove();
    });

    test('eval_batch sends one progress notification per finished phrase, k of n, all before its answer', async () => {
      // Read off the wire: the official SDK client dispatches notifications a microtask late, so it
      // drops those that arrive in the same read as the answer (see the next test).
      const lines = await rawExchange(home.path, variant.bin, {
        name: 'eval_batch',
        arguments: { sources: ['let a = 1', 'let b = a + 1', 'let c = b + 1', 'let d = c + 1', 'let e = d + 1'] },
      });
      const answer = lines.findIndex((m) => m.id === 2);
      assert.ok(answer > 0, 'no answer');
      const progress = lines.slice(0, answer).filter((m) => m.method === 'notifications/progress');
      assert.deepEqual(
        progress.map((m) => [m.params.progressToken, m.params.progress, m.params.total, m.params.message]),
        [1, 2, 3, 4, 5].map((k) => ['batch', k, 5, `${k} of 5 phrases evaluated`]),
      );
      assert.ok(!lines.slice(answer).some((m) => m.method === 'notifications/progress'), 'progress after the answer');
    });

    test("the SDK client's onprogress sees a batch's phrases as they finish", async () => {
      const seen: Progress[] = [];
      const sources = [busyFor(0.5), busyFor(0.5), busyFor(0.5)];
      const r = await client.callTool({ name: 'eval_batch', arguments: { sources } }, CallToolResultSchema, {
        onprogress: (p) => seen.push(p),
      });
      assert.equal(payload(r).results.length, 3);
      // The last phrase's report travels with the answer and may be dropped by the SDK client.
      assert.deepEqual(
        seen.slice(0, 2).map((p) => [p.progress, p.total]),
        [
          [1, 3],
          [2, 3],
        ],
      );
    });

    test('a batch that stops on an error reports only the phrases it ran', async () => {
      // Read off the wire, like the first test: the phrases after the error are never reported.
      const lines = await rawExchange(home.path, variant.bin, {
        name: 'eval_batch',
        arguments: { sources: [busyFor(0.5), 'let y = undefined_name', 'let z = 3'] },
      });
      const answer = lines.findIndex((m) => m.id === 2);
      assert.ok(answer > 0, 'no answer');
      assert.match(JSON.stringify(lines[answer].result), /stopped_on_error\\":true/);
      const progress = lines.filter((m) => m.method === 'notifications/progress');
      assert.deepEqual(
        progress.map((m) => [m.params.progress, m.params.total]),
        [
          [1, 3],
          [2, 3],
        ],
      );
      assert.ok(lines.indexOf(progress[1]) < answer, 'progress after the answer');
    });

    test('an eval running longer than a second reports its elapsed seconds', async () => {
      const seen: Progress[] = [];
      const r = await client.callTool({ name: 'eval', arguments: { source: `${busyFor(2.5)};;` } }, CallToolResultSchema, {
        onprogress: (p) => seen.push(p),
      });
      assert.equal(payload(r).error, null);
      // 2.5 s of CPU time is at least 2.5 s of wall time: the 1 s and 2 s reports were due before the answer.
      assert.ok(seen.length >= 2, `progress: ${JSON.stringify(seen)}`);
      assert.deepEqual(
        seen.slice(0, 2).map((p) => [p.progress, p.total, p.message]),
        [
          [1, undefined, 'eval running for 1 s'],
          [2, undefined, 'eval running for 2 s'],
        ],
      );
    });

    test('cancelling an eval that reports progress interrupts it, and the toplevel keeps its state', async () => {
      await client.callTool({ name: 'eval', arguments: { source: 'let kept = 41' } });
      const controller = new AbortController();
      const call = client.callTool({ name: 'eval', arguments: { source: 'while true do () done' } }, CallToolResultSchema, {
        signal: controller.signal,
        // Cancel once the loop has demonstrably been running for a second.
        onprogress: () => controller.abort(),
      });
      await assert.rejects(call, /abort/i);
      const after = await client.callTool({ name: 'eval', arguments: { source: 'kept + 1' } });
      assert.match(payload(after).value_repr, /42/);
    });
  });
}
