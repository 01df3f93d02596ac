// The topup bin on stdio, through the official MCP SDK client.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { binCommand } from '../../helpers/bin.js';
import { connectTopup, payload, startedMarker, tempDir, testEnv, topupVariants } from '../../engines/ocaml/helpers.js';

const LOCAL_TOOLS = ['eval', 'eval_batch', 'env', 'lookup', 'reset', 'cancel', 'load', 'checkpoint', 'restore', 'compile_to_binary'];
/** The routing tools (helper R's router, mounted by the bin). */
const ROUTING_TOOLS = [
  'start_session',
  'restart_session',
  'update_host',
  'start_local_session',
  'restart_local_session',
  'update_local_session',
  'push_file',
  'pull_file',
];
const NOT_ROUTED = new Set([
  'start_session',
  'restart_session',
  'update_host',
  'start_local_session',
  'restart_local_session',
  'update_local_session',
]);

/** The raw initialize exchange, to see exactly what the server answers. */
async function rawInitialize(env: NodeJS.ProcessEnv, bin: string): Promise<any> {
  const { command, args } = binCommand(bin);
  const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
  try {
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      })}\n`,
    );
    const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    return JSON.parse(line);
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

for (const variant of topupVariants()) {
  describe(`topup over stdio [${variant.bin}]`, () => {
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

    const call = async (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args });

    test('initialize: protocol 2024-11-05, serverInfo, tools capability, instructions', async () => {
      assert.deepEqual(client.getServerVersion(), { name: 'topup', version: '0.1.0' });
      const raw = await rawInitialize({ ...process.env, ...testEnv(home.path) }, variant.bin);
      assert.equal(raw.result.protocolVersion, '2024-11-05');
      assert.deepEqual(raw.result.capabilities, { tools: {} });
      assert.deepEqual(raw.result.serverInfo, { name: 'topup', version: '0.1.0' });
      assert.match(raw.result.instructions, /persistent OCaml toplevel/);
      assert.match(client.getInstructions() ?? '', /host or session/);
    });

    test('tools/list: the 18 public tools, the local ones routable with host/session; hidden tools absent', async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), [...LOCAL_TOOLS, ...ROUTING_TOOLS].sort());
      for (const t of tools.filter((t) => LOCAL_TOOLS.includes(t.name))) {
        const props = (t.inputSchema as { properties: Record<string, unknown> }).properties;
        assert.ok(props.host && props.session, `${t.name} accepts host and session`);
      }
      assert.equal(NOT_ROUTED.size, 6);
      assert.ok(!tools.some((t) => t.name.startsWith('_')));
    });

    test('eval answers the contract fields as one JSON text item', async () => {
      const r = await call('eval', { source: 'let x = 41;; print_string "ok"; x + 1' });
      assert.equal(r.isError, false);
      assert.equal((r.content as unknown[]).length, 1);
      assert.deepEqual(payload(r), { value_repr: '42', type: 'int', stdout: 'ok', stderr: '', warnings: [], error: null });
      const bad = payload(await call('eval', { source: 'x +. 1.0' }));
      assert.match(bad.error, /has type int but an expression was expected of type\s+float/);
      assert.equal(bad.error_kind, 'compile');
    });

    test('eval_batch, env and lookup', async () => {
      const batch = payload(await call('eval_batch', { sources: ['let m = 6', 'let n = m * 7', 'oops_unbound', 'n'] }));
      assert.equal(batch.stopped_on_error, true);
      assert.equal(batch.results.length, 3);
      const env = payload(await call('env', { filter: 'm' }));
      assert.deepEqual(env.bindings, [{ name: 'm', type: 'int', user: true }]);
      const found = payload(await call('lookup', { name: 'n' }));
      assert.equal(found.type, 'int');
      assert.equal(found.preview, '42');
      const missing = await call('lookup', { name: 'not_there' });
      assert.equal(missing.isError, true);
      assert.match(payload(missing).error, /Unbound value not_there/);
    });

    test('checkpoint/restore over the wire; bad labels refused', async () => {
      for (const label of ['../x', '.hidden', '', 'a/b']) {
        const r = await call('checkpoint', { label });
        assert.equal(r.isError, true, `label ${JSON.stringify(label)}`);
        assert.match(payload(r).error, /invalid checkpoint label/);
      }
      assert.equal(payload(await call('checkpoint', { label: 'wire' })).label, 'wire');
      await call('eval', { source: 'let after_checkpoint = 1' });
      const restored = payload(await call('restore', { label: 'wire' }));
      assert.equal(restored.error, null);
      assert.match(payload(await call('eval', { source: 'after_checkpoint' })).error, /Unbound value/);
      assert.equal(payload(await call('eval', { source: 'x' })).value_repr, '41');
    });

    test('load, compile_to_binary and reset refuse bad input with a clear error', async () => {
      assert.match(payload(await call('load', { path: 'rel.cma' })).error, /absolute/);
      const c = await call('compile_to_binary', { entry: 'x', out: `${home.path}/bin-out` });
      assert.equal(c.isError, true);
      assert.match(payload(c).error, /expected a function of type unit -> _/);
      assert.equal((await call('eval', { source: 1 as unknown as string })).isError, true);
      const reset = payload(await call('reset'));
      assert.equal(reset.reset, true);
      assert.match(payload(await call('eval', { source: 'x' })).error, /Unbound value x/);
    });

    test('routing fields: both is an error; an unregistered host or session says how to start it; "local" is local', async () => {
      const both = await call('eval', { source: '1', host: 'h', session: 's' });
      assert.equal(both.isError, true);
      assert.match(payload(both).error, /mutually exclusive/);
      const host = await call('env', { host: 'build-box' });
      assert.equal(host.isError, true);
      assert.match(payload(host).error, /build-box.*start_session/);
      const session = await call('eval', { source: '1', session: 'scratch' });
      assert.equal(session.isError, true);
      assert.match(payload(session).error, /scratch.*start_local_session/);
      assert.equal(payload(await call('eval', { source: '1 + 2', host: 'local' })).value_repr, '3');
      assert.equal(payload(await call('eval', { source: '2 + 2', session: 'local' })).value_repr, '4');
    });

    test('notifications/cancelled for a running eval stops it within the 1 s grace; state survives', async () => {
      await call('eval', { source: 'let spins = ref 0;; let kept = "kept"' });
      const started = startedMarker(home.path, 'notified-loop');
      const ac = new AbortController();
      const running = client.callTool(
        { name: 'eval', arguments: { source: `while true do incr spins; if !spins = 1 then ${started.ocaml} done`, timeout: 600 } },
        undefined,
        { signal: ac.signal },
      );
      await started.wait();
      ac.abort();
      await assert.rejects(running);
      // The counter lives only in the process that ran the loop: a replacement (after the 1 s
      // grace) would have replayed the log without it and answer 0.
      const spins = payload(await call('eval', { source: '!spins > 0, kept' }));
      assert.equal(spins.error, null);
      assert.equal(spins.value_repr, '(true, "kept")');
    });

    test('the cancel tool interrupts an eval running on another request', async () => {
      await call('eval', { source: 'let c_spins = ref 0' });
      const started = startedMarker(home.path, 'cancel-tool-loop');
      // The marker is written once the loop has counted (an interrupt may land as soon as the
      // marker exists, even inside the call that writes it, on a loaded machine).
      const running = call('eval', { source: `while true do incr c_spins; if !c_spins = 1 then ${started.ocaml} done`, timeout: 600 });
      await started.wait();
      assert.equal(payload(await call('cancel')).cancelled, true);
      const r = payload(await running);
      assert.equal(r.error, 'evaluation timed out');
      assert.equal(r.toplevel_restarted, undefined);
      assert.equal(payload(await call('eval', { source: '!c_spins > 0' })).value_repr, 'true');
    });

    test('a bare notifications/cancelled (no host/session, unknown request) cancels the local eval', async () => {
      const running = call('eval', { source: 'let rec forever () = forever () in forever ()', timeout: 600 });
      // Repeat the notification until the eval has started and answers; each one that lands
      // between evals has nothing to interrupt.
      let settled = false;
      void running.finally(() => (settled = true));
      const deadline = Date.now() + 20_000;
      while (!settled && Date.now() < deadline) {
        await client.notification({ method: 'notifications/cancelled', params: { requestId: 'not-a-live-request' } });
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(payload(await running).error, 'evaluation timed out');
    });
  });
}
