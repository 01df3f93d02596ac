// User code that forks, or starts programs: the agent's protocol channel stays the agent's own.
// A forked child that returns into the toplevel exits there without answering (before, it
// answered the request too and then took turns with the agent at reading requests), and a
// program user code starts does not inherit the channel (before, `echo x >&3` wrote into it).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { OcamlToplevel } from '../../../engines/ocaml/index.js';
import { testEngine, topupVariants } from './helpers.js';

for (const variant of topupVariants()) {
  describe(`processes started by user code [${variant.bin}]`, () => {
    let engine: OcamlToplevel;
    let close: () => Promise<void>;
    before(() => ({ engine, close } = testEngine({ driver: variant.driver })));
    after(() => close());

    test('a forked child that fails returns into the toplevel and exits there, with status 2, and says so', async () => {
      await engine.eval('let counter = ref 0;; let agent = Unix.getpid ()');
      // The parent waits for the child: before the fix the child answered this call and then sat
      // reading requests, so the wait never ended (the call timed out).
      const r = await engine.eval('match Unix.fork () with 0 -> failwith "x" | pid -> snd (Unix.waitpid [] pid)', { timeout: 20 });
      assert.equal(r.error, null);
      assert.equal(r.value_repr, 'Unix.WEXITED 2');
      assert.match(r.stderr, /forked by user code, reached the end of the phrase; only the toplevel \(pid \d+\) answers/);
      // Every later call is answered by the same toplevel, in order.
      for (let k = 1; k <= 6; k++) {
        const step = await engine.eval('incr counter; (!counter, Unix.getpid () = agent)');
        assert.equal(step.value_repr, `(${k}, true)`);
      }
    });

    test('a child that is not waited for never answers either: calls stay in order', async () => {
      await engine.eval('let steps = ref 0');
      const fork = await engine.eval('match Unix.fork () with 0 -> () | _ -> ()');
      assert.equal(fork.error, null);
      for (let k = 1; k <= 6; k++) assert.equal((await engine.eval('incr steps; !steps')).value_repr, String(k));
    });

    test('a fork inside eval_batch: the child writes no element of the journal', async () => {
      const r = await engine.evalBatch([
        'let batch_agent = Unix.getpid ()',
        'match Unix.fork () with 0 -> failwith "child" | pid -> snd (Unix.waitpid [] pid)',
        'Unix.getpid () = batch_agent',
        '"last"',
      ]);
      assert.equal(r.stopped_on_error, false);
      assert.equal(r.results.length, 4);
      assert.deepEqual(
        r.results.slice(1).map((e) => e.value_repr),
        ['Unix.WEXITED 2', 'true', '"last"'],
      );
    });

    test('a program user code starts does not hold the channel: `echo x >&3` fails in the shell and the call answers', async () => {
      const r = await engine.eval('Sys.command "echo x >&3"');
      assert.equal(r.error, null);
      assert.notEqual(r.value_repr, '0', 'the shell could not write to fd 3');
      assert.match(r.stderr, /3: Bad file descriptor/);
      assert.equal((await engine.eval('20 + 22')).value_repr, '42');
    });
  });
}
