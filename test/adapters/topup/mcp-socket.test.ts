// topup --socket: owner-only socket, one client at a time, the toplevel kept across reconnects.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectUnixSocket } from '../../../transports/index.js';
import { binCommand } from '../../helpers/bin.js';
import { payload, tempDir, testEnv, topupVariants } from '../../engines/ocaml/helpers.js';

for (const variant of topupVariants()) {
  describe(`topup --socket [${variant.bin}]`, () => {
    const home = tempDir();
    const socketPath = join(home.path, 'sockets', 'topup.sock');
    let server: ChildProcess;

    before(async () => {
      const { command, args } = binCommand(variant.bin, ['--socket', socketPath]);
      server = spawn(command, args, { env: { ...process.env, ...testEnv(home.path) }, stdio: ['ignore', 'ignore', 'pipe'] });
      const lines = createInterface({ input: server.stderr! });
      const ready = new Promise<void>((resolve, reject) => {
        lines.on('line', (line) => line.includes('serving on') && resolve());
        server.once('exit', (code) => reject(new Error(`topup --socket exited early with code ${code}`)));
      });
      await ready;
    });

    after(async () => {
      if (server.exitCode === null && server.signalCode === null) {
        server.kill('SIGTERM');
        await once(server, 'exit');
      }
      home.remove();
    });

    async function connect(): Promise<Client> {
      const client = new Client({ name: 'socket-test', version: '1' });
      await client.connect(await connectUnixSocket(socketPath));
      return client;
    }

    test('the socket is owner-only', () => {
      assert.equal(statSync(socketPath).mode & 0o777, 0o600);
    });

    test('bindings survive a disconnect and a reconnect', async () => {
      const first = await connect();
      assert.deepEqual(first.getServerVersion(), { name: 'topup', version: '0.1.0' });
      assert.equal(payload(await first.callTool({ name: 'eval', arguments: { source: 'let x = 41' } })).value_repr, 'val x : int = 41');
      await first.close();

      // The server notices the disconnect asynchronously; a connection made before that is refused
      // as busy, so retry until it is accepted (bounded).
      let second: Client | undefined;
      const deadline = Date.now() + 20_000;
      while (!second) {
        try {
          second = await connect();
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      const r = payload(await second.callTool({ name: 'eval', arguments: { source: 'x + 1' } }));
      assert.equal(r.value_repr, '42');
      await second.close();
    });

    test('SIGTERM stops the server and removes the socket', async () => {
      server.kill('SIGTERM');
      const [code] = await once(server, 'exit');
      assert.equal(code, 0);
      assert.equal(existsSync(socketPath), false);
    });
  });
}
