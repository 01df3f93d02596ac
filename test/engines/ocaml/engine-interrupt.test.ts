// Stopping runaway user code: timeout, cancel(), an AbortSignal, exit, a killed agent; and the
// queue that serializes calls. Each loop increments a counter first: after the interrupt the
// counter is still > 0 only if the same toplevel process survived (a restarted one would have
// replayed the log, where the failed loop phrase is absent). The engine's interrupt grace is
// 1000 ms, so a surviving process also shows the loop stopped within 1 s of the interrupt.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OcamlToplevel, EvalResult } from '../../../engines/ocaml/index.js';
import { startedMarker, tempDir, testEngine, topupVariants } from './helpers.js';

/** Resolves once the engine reports an eval running (no fixed sleeps). */
async function whenBusy(engine: OcamlToplevel): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!engine.busy) {
    if (Date.now() > deadline) throw new Error('the eval never started');
    await new Promise((r) => setImmediate(r));
  }
}

/** The eval was stopped by the interrupt inside the same toplevel process. */
function assertInterruptedInPlace(r: EvalResult): void {
  assert.equal(r.error, 'evaluation timed out');
  assert.equal(r.error_kind, 'timeout');
  assert.equal(r.toplevel_restarted, undefined, 'the toplevel process survived the interrupt');
}

for (const variant of topupVariants()) {
  describe(`OcamlToplevel interrupts [${variant.bin}]`, () => {
    let engine: OcamlToplevel;
    let dir: string;
    let close: () => Promise<void>;
    before(() => ({ engine, dir, close } = testEngine({ driver: variant.driver })));
    after(() => close());

    test('a timeout stops an infinite loop and keeps bindings', async () => {
      await engine.eval('let kept = 41;; let spins = ref 0');
      // 1 s leaves the native driver time to compile the loop before the deadline hits.
      const r = await engine.eval('while true do incr spins done', { timeout: 1 });
      assertInterruptedInPlace(r);
      assert.equal((await engine.eval('kept + 1')).value_repr, '42');
      assert.equal((await engine.eval('!spins > 0')).value_repr, 'true');
    });

    test('a timeout stops a non-allocating for loop and a top-level tail recursion', async () => {
      // Neither body allocates: on the native driver only the inserted poll points let the
      // runtime notice the interrupt (a for body, a structure-level let rec).
      await engine.eval('let laps = ref 0');
      const loop = await engine.eval('for _ = 1 to max_int do incr laps done', { timeout: 2 });
      assertInterruptedInPlace(loop);
      const rec = await engine.eval('let rec forever n = incr laps; forever (n + 1);; forever 0', { timeout: 2 });
      assertInterruptedInPlace(rec);
      assert.equal((await engine.eval('!laps > 0')).value_repr, 'true');
    });

    test('a timeout stops a long non-tail recursion that neither loops nor allocates', async () => {
      // Naive fib 60 would run for hours; no loop back-edge and no tail call, so native code has
      // no poll point here: topup-opt stops the phrase's code at whatever instruction it is.
      const r = await engine.eval('let rec fib n = if n < 2 then n else fib (n - 1) + fib (n - 2) in fib 60', { timeout: 2 });
      assertInterruptedInPlace(r);
    });

    test('cancel() stops a non-tail recursion; the session survives', async () => {
      await engine.eval('let depth = ref 0');
      const started = startedMarker(dir, 'recursion');
      // Deep non-tail recursion, over and over: the interrupt lands somewhere inside the recursion.
      const running = engine.eval(
        `${started.ocaml}; let rec f n = incr depth; if n = 0 then 0 else 1 + f (n - 1) in while true do ignore (f 100_000) done`,
        { timeout: 60 },
      );
      await started.wait();
      assert.deepEqual(engine.cancel(), { cancelled: true });
      const r = await running;
      assertInterruptedInPlace(r);
      assert.equal((await engine.eval('!depth > 0')).value_repr, 'true');
      assert.deepEqual(engine.cancel(), { cancelled: false }, 'nothing left to cancel');
    });

    test('an AbortSignal stops a sleeping phrase', async () => {
      await engine.eval('#require "unix";; let before_sleep = 3');
      const ac = new AbortController();
      const started = startedMarker(dir, 'sleep');
      const running = engine.eval(`${started.ocaml}; Unix.sleepf 60.0`, { signal: ac.signal, timeout: 120 });
      await started.wait();
      ac.abort();
      assertInterruptedInPlace(await running);
      assert.equal((await engine.eval('before_sleep')).value_repr, '3');
    });

    test('a queued call cancelled before its turn never runs; calls run in arrival order', async () => {
      await engine.eval('let order = ref []');
      const blocker = engine.eval('let rec spin () = spin () in spin ()', { timeout: 60 });
      const ac = new AbortController();
      const skipped = engine.eval('order := "skipped" :: !order', { signal: ac.signal });
      const first = engine.eval('order := "first" :: !order');
      const second = engine.eval('order := "second" :: !order');
      ac.abort();
      await assert.rejects(skipped, /never ran/);
      await whenBusy(engine);
      engine.cancel();
      assertInterruptedInPlace(await blocker);
      await first;
      await second;
      assert.equal((await engine.eval('!order')).value_repr, '["second"; "first"]');
    });

    test('exit 0 in user code does not take the engine down: a new toplevel replays the log', async () => {
      await engine.eval('let survivor = "still here"');
      const r = await engine.eval('print_string "bye"; exit 0');
      assert.equal(r.error_kind, 'crash');
      assert.match(r.error!, /exited with code 0.*replaying \d+ logged phrases/);
      assert.equal(r.stdout, 'bye', 'output written before exit is kept');
      assert.ok(r.toplevel_restarted && r.toplevel_restarted.replay_error === null);
      assert.equal((await engine.eval('survivor')).value_repr, '"still here"');
    });

    test('a segfault in user code is survived: a new toplevel replays the log', async () => {
      await engine.eval('let before_crash = [1; 2]');
      const r = await engine.eval('(Obj.magic 0 : unit -> unit) ()');
      assert.equal(r.error_kind, 'crash');
      assert.match(r.error!, /killed by SIGSEGV.*replaying \d+ logged phrases/);
      assert.equal((await engine.eval('before_crash')).value_repr, '[1; 2]');
    });

    test('an agent that ignores the interrupt is killed after the grace period and rebuilt', async () => {
      await engine.eval('let rebuilt = 5');
      // Blocking SIGINT in the agent makes it deaf to the interrupt, like a phrase stuck in C code.
      assert.equal((await engine.eval('#require "unix";; ignore (Unix.sigprocmask Unix.SIG_BLOCK [Sys.sigint])')).error, null);
      const r = await engine.eval('while true do () done', { timeout: 0.2 });
      assert.equal(r.error_kind, 'timeout');
      assert.match(r.error!, /did not answer the interrupt within 1000 ms.*replaying \d+ logged phrases/);
      assert.ok(r.toplevel_restarted);
      assert.equal((await engine.eval('rebuilt')).value_repr, '5');
    });
  });

  describe(`OcamlToplevel interrupts that land while a phrase is compiled [${variant.bin}]`, () => {
    // The typing environment loads a module's components lazily and memoizes an exception raised
    // while doing so: an interrupt acted on inside the compiler used to leave the module broken,
    // and every later phrase mentioning it failed at once with "evaluation timed out". A large
    // interface makes that load long enough for the first SIGINT to land in it.
    let bigDir: { path: string; remove: () => void };
    before(() => {
      bigDir = tempDir('topup-big-');
      const vals = Array.from({ length: 20_000 }, (_, i) => `val v${i} : int -> t`).join('\n');
      writeFileSync(join(bigDir.path, 'big.mli'), `type t = int\n${vals}\n`);
      execFileSync('ocamlfind', ['ocamlc', '-c', 'big.mli'], { cwd: bigDir.path });
    });
    after(() => bigDir.remove());

    test('cancel() while the compiler loads a module: the phrase stops, the module stays usable', async () => {
      for (let attempt = 0; attempt < 3; attempt++) {
        // Loading the big interface takes ~0.1 s here, far longer on a loaded machine; while it
        // loads, interrupts are not acted on, so the grace period must not run out first.
        const { engine, close } = testEngine({ driver: variant.driver, interruptGraceMs: 20_000 });
        try {
          assert.equal((await engine.eval(`#directory ${JSON.stringify(bigDir.path)}`)).error, null);
          const running = engine.eval('let rec spin (x : Big.t) : unit = spin x in spin 0', { timeout: 60 });
          await whenBusy(engine);
          assert.deepEqual(engine.cancel(), { cancelled: true });
          assertInterruptedInPlace(await running);
          const later = await engine.eval('let later : Big.t = 7');
          assert.equal(later.error, null, `attempt ${attempt}: a later phrase mentioning Big failed`);
          assert.equal(later.value_repr, 'val later : Big.t = 7');
        } finally {
          await close();
        }
      }
    });

    test('a phrase whose type checking never ends: killed after the grace period, the log replayed', async () => {
      const { engine, close } = testEngine({ driver: variant.driver });
      try {
        await engine.eval('let kept_through = "restart"');
        // Module subtyping is undecidable; this classic instance sends OCaml's checker into an
        // endless loop. The interrupt is never acted on inside the compiler, so the agent does not
        // answer it and is replaced.
        const r = await engine.eval(
          [
            'module type I = sig module type A module F : functor (X : sig module type A = A module F : functor (X : A) -> sig end end) -> sig end end',
            'module type J = sig module type A = I module F : functor (X : I) -> sig end end',
            'module Loop (X : J) = (X : I)',
          ].join(';;\n'),
          { timeout: 0.2 },
        );
        assert.equal(r.error_kind, 'timeout');
        assert.match(r.error!, /did not answer the interrupt within 1000 ms.*replaying \d+ logged phrases/);
        assert.equal(r.toplevel_restarted?.replay_error, null);
        assert.equal((await engine.eval('kept_through')).value_repr, '"restart"');
      } finally {
        await close();
      }
    });

    test('a batch deadline that passes while the phrase compiles stops its code, and the toplevel stays healthy', async () => {
      const { engine, close } = testEngine({ driver: variant.driver });
      try {
        // 400 chained lets take well over the 20 ms deadline to type and compile; the deadline
        // is carried over to the phrase's code, where the endless loop is stopped in place.
        const lets = Array.from({ length: 400 }, (_, i) => `let a${i + 1} = a${i} * 3 + ${i} in`).join(' ');
        const r = await engine.evalBatch([`let slow a0 = ${lets} a400 in let rec spin () = spin () in ignore (slow 0); spin ()`], {
          timeout: 0.02,
        });
        assert.equal(r.stopped_on_error, true);
        assertInterruptedInPlace(r.results[0]!);
        const later = await engine.eval('let rec down n = if n = 0 then Sys.word_size else down (n - 1) in down 10');
        assert.equal(later.error, null);
        assert.equal(later.value_repr, '64');
      } finally {
        await close();
      }
    });
  });

  describe(`OcamlToplevel eval_batch deadlines [${variant.bin}]`, () => {
    test('each element has its own timeout; the batch stops at the one that ran out, bindings kept', async () => {
      const { engine, dir, close } = testEngine({ driver: variant.driver });
      try {
        const started = startedMarker(dir, 'batch-loop');
        const r = await engine.evalBatch(['let before = 1', `${started.ocaml}; while true do () done`, 'let after = 2'], { timeout: 0.3 });
        assert.equal(r.stopped_on_error, true);
        assert.equal(r.results.length, 2);
        assert.equal(r.results[1]!.error, 'evaluation timed out');
        assert.equal(r.results[1]!.toplevel_restarted, undefined);
        assert.equal((await engine.eval('before')).value_repr, '1');
        assert.match((await engine.eval('after')).error!, /Unbound value after/);
        // Elements that each fit their deadline are fine even when the batch as a whole takes
        // longer. Each element waits until the test has seen it start, then stays a little while,
        // well inside its own deadline; the whole batch is only done once four elements ran, which
        // is past one deadline. (No tight margin: each element has a 5 s deadline and holds 1.5 s
        // at most, after the test released it.)
        await engine.eval('#require "unix"');
        const gates = [0, 1, 2, 3].map((i) => startedMarker(dir, `gate-${i}`));
        const release = (i: number) => `${dir}/gate-${i}.go`;
        const element = (i: number) =>
          `${gates[i]!.ocaml}; while not (Sys.file_exists ${JSON.stringify(release(i))}) do Unix.sleepf 0.01 done; Unix.sleepf 1.5`;
        const begun = Date.now();
        const slowBatch = engine.evalBatch([0, 1, 2, 3].map(element), { timeout: 5 });
        for (let i = 0; i < 4; i++) {
          await gates[i]!.wait();
          writeFileSync(release(i), '');
        }
        const slow = await slowBatch;
        assert.equal(slow.stopped_on_error, false, JSON.stringify(slow.results.map((x) => x.error)));
        assert.ok(Date.now() - begun > 5000, 'the batch as a whole outlasted one element deadline');
        // cancel() stops the running element and therefore the batch.
        const spin = startedMarker(dir, 'batch-cancel');
        const running = engine.evalBatch(['let c = 3', `${spin.ocaml}; while true do () done`, 'let d = 4'], { timeout: 60 });
        await spin.wait();
        assert.deepEqual(engine.cancel(), { cancelled: true });
        const cancelled = await running;
        assert.equal(cancelled.results.length, 2);
        assert.equal(cancelled.results[1]!.error, 'evaluation timed out');
        // A crash mid-batch keeps the elements already done (and their bindings, replayed).
        const crashed = await engine.evalBatch(['let kept_a = 10', 'print_string "b"; 2', 'print_string "dying"; exit 3', 'let never = 0']);
        assert.equal(crashed.stopped_on_error, true);
        assert.deepEqual(
          crashed.results.map((x) => x.error_kind ?? null),
          [null, null, 'crash'],
        );
        assert.equal(crashed.results[1]!.stdout, 'b');
        assert.equal(crashed.results[2]!.stdout, 'dying');
        assert.match(crashed.results[2]!.error!, /exited with code 3/);
        assert.equal((await engine.eval('kept_a')).value_repr, '10');
        // Per-element output stays with its element.
        const out = await engine.evalBatch(['print_string "one"', 'prerr_string "two"; 2']);
        assert.deepEqual(
          out.results.map((x) => [x.stdout, x.stderr]),
          [
            ['one', ''],
            ['', 'two'],
          ],
        );
      } finally {
        await close();
      }
    });
  });
}
