// Session state: reset, load, checkpoint/restore, the phrase log, compile_to_binary.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync, readdirSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import type { OcamlToplevel } from '../../../engines/ocaml/index.js';
import { testEngine, tempDir, topupVariants } from './helpers.js';

for (const variant of topupVariants()) {
  describe(`OcamlToplevel state [${variant.bin}]`, () => {
    let engine: OcamlToplevel;
    let dir: string;
    let close: () => Promise<void>;
    before(() => ({ engine, dir, close } = testEngine({ driver: variant.driver })));
    after(() => close());

    test('the phrase log holds exactly the successful phrases, as OCaml source', async () => {
      await engine.reset();
      await engine.eval('let a = 1;; let b = a + "x"');
      await engine.eval('let c = 3 (* a comment *)');
      await engine.eval('failwith "no"');
      assert.equal(readFileSync(join(dir, 'phrases.ml'), 'utf8'), 'let a = 1;;\nlet c = 3;;\n');
    });

    // The driver decides what load takes: .cma/.cmo (bytecode), .cmxs/.cmx/.cmxa (native).
    const compiled =
      variant.driver === 'bytecode'
        ? { file: 'shapes.cma', build: ['ocamlc', '-a', '-o', 'shapes.cma', 'shapes.ml'], foreign: 'shapes.ml', refused: /\.cma or \.cmo/ }
        : {
            file: 'shapes.cmxs',
            build: ['ocamlopt', '-shared', '-o', 'shapes.cmxs', 'shapes.ml'],
            foreign: 'shapes.cma',
            refused: /\.cmxs/,
          };

    test(`load: a compiled ${compiled.file} is usable; reset drops it and every binding`, async () => {
      const lib = tempDir();
      try {
        writeFileSync(join(lib.path, 'shapes.ml'), 'let area r = 3 * r * r\n');
        execFileSync('ocamlfind', compiled.build, { cwd: lib.path });
        await assert.rejects(engine.load(compiled.file), /must be absolute/);
        await assert.rejects(engine.load(join(lib.path, compiled.foreign)), compiled.refused);
        await assert.rejects(engine.load(join(lib.path, `missing${compiled.file.slice(6)}`)), /cannot load/);
        const loaded = await engine.load(join(lib.path, compiled.file));
        assert.equal(loaded.directory, lib.path);
        await engine.eval('let before_reset = 1');
        assert.equal((await engine.eval('Shapes.area 2')).value_repr, '12');
        assert.ok(!readFileSync(join(dir, 'phrases.ml'), 'utf8').includes('shapes.cm'), 'load is not logged');
        const r = await engine.reset();
        assert.equal(r.reset, true);
        assert.match((await engine.eval('Shapes.area 2')).error!, /Unbound module Shapes/);
        assert.match((await engine.eval('before_reset')).error!, /Unbound value before_reset/);
        assert.equal(readFileSync(join(dir, 'phrases.ml'), 'utf8'), '', 'reset clears the log');
      } finally {
        lib.remove();
      }
    });

    if (variant.driver === 'native') {
      test('load under the native driver also takes a .cmx and an .ml source (compiled privately)', async () => {
        const lib = tempDir();
        try {
          writeFileSync(join(lib.path, 'tri.ml'), 'let sum n = n * (n + 1) / 2\n');
          execFileSync('ocamlfind', ['ocamlopt', '-c', 'tri.ml'], { cwd: lib.path });
          await engine.load(join(lib.path, 'tri.cmx'));
          assert.equal((await engine.eval('Tri.sum 10')).value_repr, '55');
          writeFileSync(join(lib.path, 'geo.ml'), 'let double = List.map (fun x -> 2 * x)\n');
          const before = readdirSync(lib.path).sort();
          await engine.load(join(lib.path, 'geo.ml'));
          assert.equal((await engine.eval('Geo.double [1; 2]')).value_repr, '[2; 4]');
          assert.deepEqual(readdirSync(lib.path).sort(), before, 'nothing is written beside the source');
          writeFileSync(join(lib.path, 'bad.ml'), 'let x = 1 +\n');
          await assert.rejects(engine.load(join(lib.path, 'bad.ml')), /cannot compile .*bad\.ml/);
        } finally {
          lib.remove();
        }
      });
    }

    test('reset drops #require-d libraries too (a new process)', async () => {
      await engine.eval('#require "str"');
      assert.equal((await engine.eval('Str.quote "."')).error, null);
      await engine.reset();
      // Str's interface sits in the stdlib directory, so the typer finds it; its code is gone.
      assert.match(
        (await engine.eval('Str.quote "."')).error!,
        /Unbound module Str|undefined global `Str'|code of module Str is not loaded/,
      );
    });

    test('checkpoint labels that could escape or hide are refused before touching the disk', async () => {
      for (const label of ['../x', '.hidden', '', 'a/b', 'a..b', 'sp ace', '..', '/abs']) {
        await assert.rejects(engine.checkpoint(label), /invalid checkpoint label/, `label ${JSON.stringify(label)}`);
      }
      assert.ok(!existsSync(join(dir, 'checkpoints')) || readdirSync(join(dir, 'checkpoints')).length === 0);
      assert.ok(!existsSync(join(dir, 'x.ml')));
    });

    test('checkpoint then restore replays the saved phrases into a fresh environment', async () => {
      await engine.reset();
      await engine.eval('let base = 10;; let twice x = 2 * x');
      const cp = await engine.checkpoint('v1.good-state_1');
      assert.equal(cp.path, join(dir, 'checkpoints', 'v1.good-state_1.ml'));
      assert.equal(cp.phrases, 2);
      assert.equal(readFileSync(cp.path, 'utf8'), 'let base = 10;;\nlet twice x = 2 * x;;\n');
      await engine.eval('let later = 99;; let base = 0');
      const r = await engine.restore('v1.good-state_1');
      assert.equal(r.error, null);
      assert.equal(r.phrases_replayed, 2);
      assert.equal((await engine.eval('twice base')).value_repr, '20');
      assert.match((await engine.eval('later')).error!, /Unbound value later/);
      assert.equal(readFileSync(join(dir, 'phrases.ml'), 'utf8'), 'let base = 10;;\nlet twice x = 2 * x;;\ntwice base;;\n');
      // Overwrite: the same label now saves the new log.
      await engine.eval('let third = 3');
      assert.equal((await engine.checkpoint('v1.good-state_1')).phrases, 4);
      await assert.rejects(engine.restore('never-saved'), /no checkpoint named "never-saved".*available: v1\.good-state_1/);
    });

    test('a checkpoint that fails mid-replay reports the error; the log keeps what replayed', async () => {
      writeFileSync(join(dir, 'checkpoints', 'broken.ml'), 'let fine = 1;;\nlet broken = fine + "s";;\nlet never = 2;;\n');
      const r = await engine.restore('broken');
      assert.equal(r.error_kind, 'compile');
      assert.equal((await engine.eval('fine')).value_repr, '1');
      assert.equal(readFileSync(join(dir, 'phrases.ml'), 'utf8').startsWith('let fine = 1;;\n'), true);
      assert.ok(!readFileSync(join(dir, 'phrases.ml'), 'utf8').includes('never'));
    });

    test('compile_to_binary builds a native program that prints what the session defined', async () => {
      const out = tempDir();
      try {
        await engine.reset();
        await engine.eval('#require "str";; let words = ["topup"; "compiled"]');
        await engine.eval('let main () = print_string (String.concat " " (List.map (Str.global_replace (Str.regexp "o") "0") words))');
        await assert.rejects(
          engine.compileToBinary({ entry: 'words', out: out.path }),
          /has type string list; expected a function of type unit -> _/,
        );
        await assert.rejects(engine.compileToBinary({ entry: 'nope', out: out.path }), /Unbound value nope/);
        await assert.rejects(engine.compileToBinary({ entry: 'main', out: 'relative/dir' }), /absolute/);
        const target = join(out.path, 'promoted');
        const r = await engine.compileToBinary({ entry: 'main', out: target, libraries: [] });
        assert.equal(r.ok, true, r.build_log);
        assert.equal(r.binary_path, join(target, 'main.exe'));
        assert.equal(execFileSync(r.binary_path!, { encoding: 'utf8' }), 't0pup c0mpiled');
        assert.ok(existsSync(join(target, '.topup-promote')));
        // A second promotion into the same (marked) directory is allowed and rebuilds.
        await engine.eval('let main () = print_string "second"');
        const again = await engine.compileToBinary({ entry: 'main', out: target });
        assert.equal(again.ok, true, again.build_log);
        assert.equal(execFileSync(again.binary_path!, { encoding: 'utf8' }), 'second');
        // A non-empty directory without the marker is refused.
        const foreign = join(out.path, 'foreign');
        mkdirSync(foreign);
        writeFileSync(join(foreign, 'keep.txt'), 'mine');
        await assert.rejects(engine.compileToBinary({ entry: 'main', out: foreign }), /not empty and has no \.topup-promote marker/);
        assert.deepEqual(readdirSync(foreign), ['keep.txt']);
      } finally {
        out.remove();
      }
    });

    test('a failing build answers ok:false with the build log', async () => {
      const out = tempDir();
      try {
        await engine.reset();
        await engine.eval('let main () = ()');
        const r = await engine.compileToBinary({ entry: 'main', out: join(out.path, 'p'), libraries: ['no_such_findlib_lib'] });
        assert.equal(r.ok, false);
        assert.equal(r.binary_path, null);
        assert.match(r.build_log, /no_such_findlib_lib/);
      } finally {
        out.remove();
      }
    });
  });

  describe(`OcamlToplevel with an unwritable TOPUP_LOG [${variant.bin}]`, () => {
    test('eval still works; checkpoint, restore and compile_to_binary say why they cannot', async () => {
      const d = tempDir();
      const ro = join(d.path, 'ro');
      mkdirSync(ro);
      chmodSync(ro, 0o500);
      const isRoot = process.getuid?.() === 0;
      // root ignores directory permissions; a path under a regular file is unwritable for everyone.
      writeFileSync(join(d.path, 'file'), '');
      const logPath = isRoot ? join(d.path, 'file', 'log.ml') : join(ro, 'log.ml');
      const { engine, close } = testEngine({ logPath, driver: variant.driver });
      try {
        assert.equal((await engine.eval('let v = 1;; v')).value_repr, '1');
        await assert.rejects(engine.checkpoint('x'), /checkpoint needs the phrase log, but TOPUP_LOG=.* is not writable/);
        await assert.rejects(engine.restore('x'), /restore needs the phrase log/);
        await assert.rejects(engine.compileToBinary({ entry: 'v', out: join(d.path, 'out') }), /compile_to_binary needs the phrase log/);
      } finally {
        await close();
        chmodSync(ro, 0o700);
        d.remove();
      }
    });
  });
}
