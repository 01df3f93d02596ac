// topup-opt's in-memory phrase loader (engines/ocaml/agent/phrase_assembler.ml, phrase_loader.ml):
// its encodings against GNU as, and the fallback to `as` and `ld` on an instruction it does not know.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OcamlToplevel } from '../../../engines/ocaml/index.js';
import { agentSourceDir } from '../../../engines/ocaml/package-root.js';
import { tempDir, testEngine } from './helpers.js';

const wantsNative = !process.env.TOPUP_TEST_BINS || process.env.TOPUP_TEST_BINS.includes('topup-opt');

describe('topup-opt in-memory assembler', { skip: wantsNative ? false : 'TOPUP_TEST_BINS excludes topup-opt' }, () => {
  test('encodes every instruction form the amd64 backend emits byte for byte as GNU as does', () => {
    const dir = tempDir('topup-asm-check-');
    try {
      copyFileSync(join(agentSourceDir(), 'phrase_assembler.ml'), join(dir.path, 'phrase_assembler.ml'));
      copyFileSync(new URL('./fixtures/assembler_vs_gas.ml', import.meta.url), join(dir.path, 'assembler_vs_gas.ml'));
      execFileSync(
        'ocamlfind',
        ['ocamlopt', '-package', 'compiler-libs.optcomp', '-linkpkg', 'phrase_assembler.ml', 'assembler_vs_gas.ml', '-o', 'check'],
        { cwd: dir.path, stdio: 'pipe' },
      );
      let out: string;
      try {
        out = execFileSync('./check', { cwd: dir.path, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
      } catch (err) {
        throw new Error(`the assembler differs from GNU as:\n${(err as { stdout?: string }).stdout ?? err}`);
      }
      const count = Number(/(\d+) instructions/.exec(out)?.[1]);
      assert.ok(count > 70_000, `expected the full sample of instruction forms, got ${count}`);
      assert.match(out, /^0 mismatches$/m);
    } finally {
      dir.remove();
    }
  });
});

describe('topup-opt fallback to as and ld', { skip: wantsNative ? false : 'TOPUP_TEST_BINS excludes topup-opt' }, () => {
  let engine: OcamlToplevel;
  let close: () => Promise<void>;
  const log: string[] = [];
  before(() => {
    // The agent's test hook: SQRTSD is treated as an instruction the in-memory assembler does not know.
    ({ engine, close } = testEngine({
      driver: 'native',
      env: { ...process.env, TOPUP_ASSEMBLER_REFUSE: 'SQRTSD' },
      log: (line) => log.push(line),
    }));
  });
  after(() => close());

  test('a phrase with an unknown instruction goes through as and ld, loudly; in-memory and linked phrases see each other', async () => {
    const base = await engine.eval('let base = 2.0 and twice x = x *. 2.0');
    assert.equal(base.error, null);
    assert.equal(log.filter((l) => /goes through as and ld/.test(l)).length, 0, 'a phrase without sqrt stays in memory');

    // sqrt compiles to SQRTSD: this phrase is assembled by `as`, linked by `ld`, dlopen'd; it uses
    // `base` and `twice`, defined by a unit loaded in memory (in no dynamic symbol table).
    const viaLd = await engine.eval('let root = twice (sqrt base)');
    assert.equal(viaLd.error, null);
    assert.equal(viaLd.value_repr, 'val root : float = 2.82842712474619029');
    assert.ok(
      log.some((l) => /does not know SQRTSD.*goes through as and ld/.test(l)),
      `expected a log line naming the instruction, got ${JSON.stringify(log)}`,
    );

    // Back in memory, using the dlopen'd unit's binding.
    const back = await engine.eval('let squared = root *. root in Float.round squared');
    assert.equal(back.error, null);
    assert.equal(back.value_repr, '8.');
  });
});

describe('topup-opt interrupts in phrase code', { skip: wantsNative ? false : 'TOPUP_TEST_BINS excludes topup-opt' }, () => {
  let engine: OcamlToplevel;
  let close: () => Promise<void>;
  before(() => ({ engine, close } = testEngine({ driver: 'native' })));
  after(() => close());

  test('an interrupt that lands anywhere in allocating phrase code leaves the heap sound and the session in place', async () => {
    const setup = await engine.eval(
      [
        'let spins = ref 0',
        'let keep = Array.init 1000 (fun i -> (i, string_of_int i, float_of_int i))',
        'let sound () = Gc.full_major (); Gc.compact (); Array.for_all Fun.id (Array.mapi (fun i (j, s, f) -> i = j && s = string_of_int i && f = float_of_int i) keep)',
      ].join(';;\n'),
    );
    assert.equal(setup.error, null);
    // The loader's handler raises Sys.Break at whatever instruction the phrase is at, allocation
    // sequences included; the collector then walks everything these loops left behind.
    const loads = [
      'let rec build n acc = if n = 0 then acc else build (n - 1) ((n, float_of_int n, [| n |]) :: acc) in while true do incr spins; ignore (Sys.opaque_identity (build 1000 [])) done',
      'let rec nt n = if n = 0 then [] else (n, ref n) :: nt (n - 1) in while true do incr spins; ignore (Sys.opaque_identity (List.map (fun (a, _) -> (a, a)) (nt 5000))) done',
      'let rec fib n = if n < 2 then n else fib (n - 1) + fib (n - 2) in incr spins; fib 60',
    ];
    for (const source of loads) {
      for (let round = 0; round < 2; round++) {
        const r = await engine.eval(source, { timeout: 1 });
        assert.equal(r.error_kind, 'timeout', `${source}: ${r.error}`);
        // spins lives only in this process: a replacement agent (log replayed) would answer false.
        const check = await engine.eval('!spins > 0 && sound ()');
        assert.equal(check.value_repr, 'true', `after interrupting ${source}: ${JSON.stringify(check)}`);
      }
    }
  });
});
