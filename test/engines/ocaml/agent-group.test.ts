// The agent's process group dies with the server: what user code forks must not outlive it,
// whether the server stops because its stdin closed or is killed by SIGKILL (which runs no
// handler: the agent's watchdog notices the server's end of fd 4 close and kills the group).
// Each test forks a child that would sleep for 1000 s, then ends the real topup server process
// and waits (bounded, polling /proc) until the agent, the child and every member of the agent's
// process group are gone.
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir, testEnv, topupVariants } from './helpers.js';
import { type RawTopup, isLive, processGroupOf, startRawTopup, waitAllGone } from './processes.js';

for (const variant of topupVariants()) {
  describe(`the agent's processes end with the server [${variant.bin}]`, () => {
    let server: RawTopup | undefined;
    let home: { path: string; remove: () => void } | undefined;
    afterEach(() => {
      server?.child.kill('SIGKILL');
      home?.remove();
    });

    /** A server whose agent has forked a sleeping child; the pids of both. */
    async function withForkedChild(): Promise<{ agent: number; child: number }> {
      home = tempDir('topup-group-');
      server = await startRawTopup(variant, testEnv(home.path));
      const r = await server.call('eval', {
        source: 'let child = match Unix.fork () with 0 -> Unix.sleep 1000; exit 0 | pid -> pid;; (Unix.getpid (), child)',
      });
      assert.equal(r.error, null);
      const [agent, child] = (/^\((\d+), (\d+)\)$/.exec(r.value_repr) ?? []).slice(1).map(Number);
      assert.ok(agent && child, `pids in ${r.value_repr}`);
      assert.ok(isLive(child!), 'the forked child runs');
      assert.equal(processGroupOf(agent!), agent, 'the agent leads its own process group');
      assert.equal(processGroupOf(child!), agent, "the child is in the agent's group");
      return { agent: agent!, child: child! };
    }

    test('SIGKILL of the server: the agent, its forked child and its whole group die', async () => {
      const { agent, child } = await withForkedChild();
      server!.child.kill('SIGKILL');
      await waitAllGone([agent, child], agent);
    });

    test('the server stops on a closed stdin: the agent, its forked child and its whole group die', async () => {
      const { agent, child } = await withForkedChild();
      const exited = new Promise((r) => server!.child.once('exit', r));
      server!.child.stdin.end();
      await exited;
      await waitAllGone([agent, child], agent);
    });

    test('reset: the old agent and what it forked are gone, the server serves on', async () => {
      const { agent, child } = await withForkedChild();
      await server!.call('reset', {});
      await waitAllGone([agent, child], agent);
      assert.equal((await server!.call('eval', { source: '1 + 1' })).value_repr, '2');
    });
  });
}
