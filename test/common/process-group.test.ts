// runInProcessGroup: the time limit kills the leader AND what it started (a driver's children must
// not outlive the limit), output arrives through the callbacks, a missing command is reported.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { test } from 'node:test';
import { runInProcessGroup } from '../../common/index.js';
import { ToolchainError, buildRiscvProgram } from '../../engines/ultimate/riscv-apps/riscv-toolchain.js';

/** Processes of group `pgid` that are still running (a killed one may linger as a zombie until reaped). */
function liveMembers(pgid: number): number[] {
  const live: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // pid (comm) state ppid pgrp ...: comm may hold spaces, so split after its closing parenthesis.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') live.push(Number(name));
  }
  return live;
}

test('the limit kills the whole group: the leader and the children it started', { timeout: 30_000 }, async () => {
  let out = '';
  // The leader prints the pid of a child that would sleep for a minute, then waits for it.
  const r = await runInProcessGroup('sh', ['-c', 'sleep 60 & echo $!; wait'], {
    timeoutMs: 300,
    onStdout: (b) => {
      out += b.toString();
    },
  });
  assert.ok(r.started);
  assert.equal(r.timedOut, true);
  assert.equal(r.signal, 'SIGKILL');
  const child = Number(out.trim());
  assert.ok(child > 0, `child pid printed: ${out}`);
  assert.deepEqual(liveMembers(r.pid), [], 'no member of the group is left running');
});

test('a command that ends in time: its exit code and output, no timeout', async () => {
  let err = '';
  const r = await runInProcessGroup('sh', ['-c', 'echo oops >&2; exit 3'], { timeoutMs: 10_000, onStderr: (b) => (err += b) });
  assert.ok(r.started);
  assert.deepEqual([r.code, r.signal, r.timedOut], [3, null, false]);
  assert.equal(err, 'oops\n');
});

test('a missing command is reported as not started (ENOENT), not thrown', async () => {
  const r = await runInProcessGroup('/nonexistent/tool', []);
  assert.equal(r.started, false);
  assert.equal(!r.started && r.error.code, 'ENOENT');
});

test('buildRiscvProgram: a build over its time limit fails with a clear error', { timeout: 30_000 }, async () => {
  await assert.rejects(
    buildRiscvProgram({ sources: { 'm.c': 'int main(void) { return 0; }\n' }, timeoutMs: 1 }),
    (e: unknown) => e instanceof ToolchainError && /took longer than 1 ms; the compiler was stopped/.test(e.message),
  );
});
