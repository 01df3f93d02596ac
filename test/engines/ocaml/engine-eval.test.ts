// OcamlToplevel.eval against the real toplevel: phrases, errors, warnings, output capture, spill.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OcamlToplevel } from '../../../engines/ocaml/index.js';
import { tempDir, testEngine, topupVariants } from './helpers.js';

for (const variant of topupVariants()) {
  describe(`OcamlToplevel eval [${variant.bin}]`, () => {
    let engine: OcamlToplevel;
    let close: () => Promise<void>;
    before(() => ({ engine, close } = testEngine({ driver: variant.driver })));
    after(() => close());

    test('several phrases in one eval: the last value is reported, all bindings stay', async () => {
      const r = await engine.eval('let a = 20\nlet b = a + 1;;\nb * 2');
      assert.equal(r.error, null);
      assert.equal(r.value_repr, '42');
      assert.equal(r.type, 'int');
      const again = await engine.eval('a + b');
      assert.equal(again.value_repr, '41');
    });

    test('a definition reports its signature and the type of its value', async () => {
      const r = await engine.eval('let greet name = "hello " ^ name');
      assert.equal(r.value_repr, 'val greet : string -> string = <fun>');
      assert.equal(r.type, 'string -> string');
    });

    test('a type error carries the message and its location; earlier phrases keep their effect', async () => {
      const r = await engine.eval('let ok_before = 1;;\nlet bad = 1 + "two"');
      assert.equal(r.error_kind, 'compile');
      assert.match(r.error!, /This expression has type string but an expression was expected of type\s+int/);
      assert.deepEqual(r.error_location, { file: '//toplevel//', line: 2, column: 14, end_line: 2, end_column: 19 });
      assert.equal(r.value_repr, null);
      assert.equal((await engine.eval('ok_before')).value_repr, '1');
      assert.match((await engine.eval('bad')).error!, /Unbound value bad/);
    });

    test('a syntax error rejects the whole input', async () => {
      const r = await engine.eval('let never_bound = 1;; let z = (1');
      assert.equal(r.error_kind, 'syntax');
      assert.match(r.error!, /Syntax error/);
      assert.match((await engine.eval('never_bound')).error!, /Unbound value never_bound/);
    });

    test('warnings are reported separately from errors and do not stop evaluation', async () => {
      const r = await engine.eval('let h x = let unused = 3 in x');
      assert.equal(r.error, null);
      assert.equal(r.warnings.length, 1);
      assert.match(r.warnings[0]!, /Warning 26 \[unused-var\]: unused variable unused/);
      assert.equal(r.type, "'a -> 'a");
    });

    test('an exception in user code is an error, and the session goes on', async () => {
      const r = await engine.eval('let before_exn = 7;; failwith "boom"');
      assert.equal(r.error_kind, 'exception');
      assert.equal(r.error, 'Exception: Failure "boom".');
      assert.equal((await engine.eval('before_exn')).value_repr, '7');
    });

    test('stdout and stderr are captured separately, without adding a trailing newline', async () => {
      const r = await engine.eval('print_string "out"; prerr_string "err"; Printf.printf "%d" 5; Format.printf "fmt"; 0');
      assert.equal(r.stdout, 'out5fmt');
      assert.equal(r.stderr, 'err');
      assert.equal(r.value_repr, '0');
    });

    test('a 1 MB output is cut inline and spilled in full', async () => {
      const r = await engine.eval("print_string (String.make 1_000_000 'x')");
      assert.ok(r.stdout_overflow, 'stdout_overflow is set');
      assert.equal(readFileSync(r.stdout_overflow!, 'utf8').length, 1_000_000);
      const m = /^(x+)…\[\+(\d+) bytes; full at (.+)\]$/.exec(r.stdout);
      assert.ok(m, `inline stdout ends with the overflow marker: ${r.stdout.slice(-80)}`);
      assert.equal(m[1]!.length + Number(m[2]), 1_000_000);
      assert.equal(m[3], r.stdout_overflow);
      assert.ok(m[1]!.length <= 16 * 1024);
    });

    test('a 2 MB value_repr is printed whole into the spill file and cut inline with the marker', async () => {
      const r = await engine.eval("String.make 2_000_000 'a'");
      assert.equal(r.error, null);
      assert.equal(r.type, 'string');
      assert.ok(r.value_repr_overflow, 'value_repr_overflow is set');
      const full = readFileSync(r.value_repr_overflow!, 'utf8');
      assert.equal(full, `"${'a'.repeat(2_000_000)}"`, "the spill holds the whole value, not the printer's truncation");
      const m = /^("a+)…\[\+(\d+) bytes; full at (.+)\]$/.exec(r.value_repr!);
      assert.ok(m, `inline value_repr ends with the overflow marker: ${r.value_repr!.slice(-80)}`);
      assert.equal(m[1]!.length + Number(m[2]), full.length);
      assert.equal(m[3], r.value_repr_overflow);
      assert.ok(Buffer.byteLength(m[1]!) <= 16 * 1024, 'the inline part is bounded');
    });

    test('#require "str" loads the package; a missing package is a clean error', async () => {
      const r = await engine.eval('#require "str";;\nStr.global_replace (Str.regexp "a") "o" "banana"');
      assert.equal(r.error, null);
      assert.equal(r.value_repr, '"bonono"');
      const missing = await engine.eval('#require "no_such_package_xyz"');
      assert.equal(missing.error_kind, 'directive');
      assert.match(missing.error!, /No such package: no_such_package_xyz/);
      assert.equal(missing.stdout, '');
    });

    test('eval_batch sees earlier bindings and stops at the first error', async () => {
      const ok = await engine.evalBatch(['let p = 2', 'let q = p * 3', 'q + 1']);
      assert.equal(ok.stopped_on_error, false);
      assert.deepEqual(
        ok.results.map((r) => r.value_repr),
        ['val p : int = 2', 'val q : int = 6', '7'],
      );
      const stopped = await engine.evalBatch(['let r1 = 1', 'r1 +', 'let r3 = 3']);
      assert.equal(stopped.stopped_on_error, true);
      assert.equal(stopped.results.length, 2);
      assert.match((await engine.eval('r3')).error!, /Unbound value r3/);
    });

    test('env lists user bindings (newest definition wins); filter and all', async () => {
      await engine.eval('let env_one = 1;; let env_two = "two";; let env_one = 1.5');
      const { bindings } = await engine.env({ filter: 'env_' });
      assert.deepEqual(
        bindings.map((b) => [b.name, b.type]),
        [
          ['env_two', 'string'],
          ['env_one', 'float'],
        ],
      );
      const plain = await engine.env({});
      assert.ok(!plain.bindings.some((b) => b.name === 'print_endline'), 'stdlib hidden by default');
      const all = await engine.env({ all: true, filter: 'print_endline' });
      assert.deepEqual(all.bindings, [{ name: 'print_endline', type: 'string -> unit', user: false }]);
    });

    test('lookup gives type, location and a bounded preview; unbound names are an error', async () => {
      await engine.eval('let big_list = List.init 10_000 (fun i -> i)');
      const r = await engine.lookup('big_list');
      assert.equal(r.type, 'int list');
      assert.equal(r.location?.line, 1);
      assert.equal(r.location?.column, 4);
      assert.ok(r.preview!.startsWith('[0; 1; 2;'));
      assert.ok(r.preview!.length < 1100, 'preview is bounded');
      const q = await engine.lookup('List.length');
      assert.equal(q.type, "'a list -> int");
      await assert.rejects(engine.lookup('no_such_binding'), /Unbound value no_such_binding/);
    });
  });

  describe(`spill files [${variant.bin}]`, () => {
    test('outlive the engine, and are swept at a later start once older than the retention', async () => {
      const home = tempDir();
      try {
        const spillDir = join(home.path, 'spill');
        const first = testEngine({ driver: variant.driver, spillDir });
        const r = await first.engine.eval("print_string (String.make 40_000 'z')");
        await first.close();
        assert.ok(r.stdout_overflow?.startsWith(`${spillDir}/`), `spilled under spillDir: ${r.stdout_overflow}`);
        assert.equal(readFileSync(r.stdout_overflow!, 'utf8').length, 40_000, 'still readable after close()');
        // Age it past the retention; a file that is not a spill file is never touched.
        const old = new Date(Date.now() - 2 * 24 * 3600 * 1000);
        utimesSync(r.stdout_overflow!, old, old);
        writeFileSync(join(spillDir, 'notes.txt'), 'mine');
        utimesSync(join(spillDir, 'notes.txt'), old, old);
        const fresh = join(spillDir, `1-${Date.now()}-1-stdout.txt`);
        writeFileSync(fresh, 'recent');
        const second = testEngine({ driver: variant.driver, spillDir });
        await second.close();
        assert.equal(existsSync(r.stdout_overflow!), false, 'the old spill file was removed');
        assert.equal(existsSync(fresh), true, 'a recent spill file is kept');
        assert.equal(existsSync(join(spillDir, 'notes.txt')), true);
      } finally {
        home.remove();
      }
    });
  });
}
