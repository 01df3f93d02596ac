// Only regular files are evidence (issue 36, part 3): a FIFO put in place of a run's evidence
// file (mkfifo runs/<id>/screen.txt) is an integrity error for that file, answered at once; the
// other evidence keeps being served and SIGTERM still stops the service. Before, open() blocked
// on the FIFO, six such reads took every libuv thread, and the process could not stop.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { binCommand } from '../../helpers/bin.js';
import { ServiceStore } from '../../../services/ultimate-tool/store/store.js';
import { bareProject, commitRun, getJson } from './bare-service.js';

const RUN = '0b7e5a8c-1d2f-4a3b-8c4d-5e6f7a8b9c0d';

test('a FIFO or a symlink as evidence is refused at once; the service serves on and stops on SIGTERM', { timeout: 120_000 }, async () => {
  const { work, project, store } = bareProject();
  const s = new ServiceStore(store);
  commitRun(s, RUN, { 'screen.txt': 'READY.', 'console.txt': 'ok', 'other.txt': 'fine' });
  s.close();
  const dir = join(store, 'runs', RUN);
  rmSync(join(dir, 'screen.txt'));
  assert.equal(spawnSync('mkfifo', [join(dir, 'screen.txt')]).status, 0, 'mkfifo failed');
  rmSync(join(dir, 'console.txt'));
  writeFileSync(join(work, 'elsewhere.txt'), 'ok');
  symlinkSync(join(work, 'elsewhere.txt'), join(dir, 'console.txt'));

  const { command, args } = binCommand('ultimate-tool', ['serve', '--project', project, '--store', store, '--port', '0', '--no-vice']);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  try {
    const first = await new Promise<string>((res, rej) => {
      createInterface({ input: child.stdout }).once('line', res);
      child.once('exit', (c) => rej(new Error(`serve exited (${c}): ${stderr}`)));
    });
    const base = JSON.parse(first).url as string;
    // More reads of the FIFO than libuv has threads.
    const fifo = await Promise.all(Array.from({ length: 8 }, () => getJson(base, `/v13/runs/${RUN}/evidence/screen.txt`)));
    for (const r of fifo) {
      assert.equal(r.status, 409, JSON.stringify(r.body));
      assert.equal(r.body.error.code, 'evidence_checksum_mismatch');
      assert.match(r.body.error.message, /evidence screen\.txt of run .*: its file is a FIFO, not a regular file/);
      assert.equal(r.body.error.details.problem, 'not_a_regular_file');
    }
    const link = await getJson(base, `/v13/runs/${RUN}/evidence/console.txt`);
    assert.equal(link.status, 409);
    assert.match(link.body.error.message, /is a symbolic link, not a regular file/);
    const fine = await getJson(base, `/v13/runs/${RUN}/evidence/other.txt`);
    assert.equal(fine.status, 200, JSON.stringify(fine.body));
    assert.equal(fine.body.evidence.text, 'fine');
    child.kill('SIGTERM');
    assert.equal(await exited, 0, stderr);
  } finally {
    child.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  }
});
