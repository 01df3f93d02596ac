// eval_batch's results travel through the batch journal (engines/ocaml/batch-journal.ts), and the
// batch's phrases reach the phrase log file in one append at its end. The journal reader alone
// (records only whole, lines cut at the newline byte), then a real agent dying mid-batch by a
// signal — no exit handler of its can run — after elements that finished an instant before.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchJournal } from '../../../engines/ocaml/batch-journal.js';
import { tempDir, testEngine, topupVariants } from './helpers.js';

describe('BatchJournal', () => {
  test('takes each record once, only when its newline is there, across reads of any size', () => {
    const d = tempDir();
    try {
      const journal = new BatchJournal(join(d.path, 'batch-results'));
      try {
        assert.deepEqual(journal.read(), []);
        appendFileSync(journal.path, '{"n":1}\n{"n":2,"s":"h');
        assert.deepEqual(journal.read(), [{ n: 1 }]);
        // A record larger than the reader's 64 KiB buffer, with multi-byte characters, finishes
        // the one that was half written.
        const big = 'é€'.repeat(40_000);
        appendFileSync(journal.path, `alf ${big}"}\n{"n":3}\n`);
        assert.deepEqual(journal.read(), [{ n: 2, s: `half ${big}` }, { n: 3 }]);
        assert.deepEqual(journal.read(), []);
        appendFileSync(journal.path, 'not json\n');
        assert.throws(() => journal.read(), /malformed batch result: not json/);
      } finally {
        journal.close();
      }
      // Opening it again starts an empty journal.
      const again = new BatchJournal(join(d.path, 'batch-results'));
      assert.deepEqual(again.read(), []);
      again.close();
    } finally {
      d.remove();
    }
  });
});

for (const variant of topupVariants()) {
  describe(`eval_batch through the journal [${variant.bin}]`, () => {
    test('a batch is logged in one piece; an agent killed by a signal mid-batch keeps what finished', async () => {
      const { engine, dir, close } = testEngine({ driver: variant.driver });
      try {
        const logFile = join(dir, 'phrases.ml');
        const ok = await engine.evalBatch(['let j1 = 1', 'print_string "two"; 2', 'let j3 = j1 + 2']);
        assert.equal(ok.stopped_on_error, false);
        assert.deepEqual(
          ok.results.map((r) => [r.value_repr, r.stdout]),
          [
            ['val j1 : int = 1', ''],
            ['2', 'two'],
            ['val j3 : int = 3', ''],
          ],
        );
        assert.equal(readFileSync(logFile, 'utf8'), 'let j1 = 1;;\nprint_string "two"; 2;;\nlet j3 = j1 + 2;;\n');
        assert.equal(readFileSync(logFile, 'utf8'), engine.phraseLog.text);

        // The third element dies by SIGSEGV right after two quick ones: their results and
        // bindings come from the journal (the agent sends nothing per element, and a signal
        // leaves it no chance to), and the replay after the crash includes them.
        const crashed = await engine.evalBatch([
          'let k1 = 10',
          'let k2 = print_string "k2"; k1 + 1',
          'print_string "dying"; flush stdout; (Obj.magic 0 : unit -> unit) ()',
          'let never = 0',
        ]);
        assert.equal(crashed.stopped_on_error, true);
        assert.deepEqual(
          crashed.results.map((r) => r.error_kind ?? null),
          [null, null, 'crash'],
        );
        assert.equal(crashed.results[1]!.stdout, 'k2');
        assert.equal(crashed.results[2]!.stdout, 'dying');
        assert.match(crashed.results[2]!.error!, /killed by SIGSEGV/);
        assert.equal(crashed.results[2]!.toplevel_restarted?.replay_error, null);
        assert.equal((await engine.eval('k2 + j3')).value_repr, '14');
        assert.equal(
          readFileSync(logFile, 'utf8'),
          'let j1 = 1;;\nprint_string "two"; 2;;\nlet j3 = j1 + 2;;\nlet k1 = 10;;\nlet k2 = print_string "k2"; k1 + 1;;\nk2 + j3;;\n',
        );
      } finally {
        await close();
      }
    });
  });
}
