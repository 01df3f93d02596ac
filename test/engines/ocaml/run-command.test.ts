// runCommand (engines/ocaml/run-command.ts) runs its command as the leader of a process group
// (common/process-group.ts): at the time limit the whole group is killed. It used to kill only its
// child, so a timed-out `dune build` left dune's own children (the rule's action) running.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CommandNotFound, runCommand } from '../../../engines/ocaml/run-command.js';
import { processGoneWithin } from '../../helpers/processes.js';

/** Live (not zombie) processes whose working directory is `dir` or below it. */
function processesIn(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
      if ((cwd === dir || cwd.startsWith(`${dir}/`)) && state !== 'Z') found.push(`${pid} ${stat.slice(0, stat.lastIndexOf(')') + 1)}`);
    } catch {
      // exited while we looked, or not ours to read
    }
  }
  return found;
}

/**
 * A SIGKILL sent to the group is delivered at once, but the kernel ends each process a moment
 * later: the shell's exit can be seen first. A child the kill reached is gone within milliseconds;
 * one it missed (sleep 60) stays for a minute — so wait up to 2 s for it to go.
 */
const goneSoon = (pid: number) => processGoneWithin(pid, 2_000);

test('a command over its time limit is killed with the children it started', { timeout: 30_000 }, async () => {
  const r = await runCommand('sh', ['-c', 'sleep 60 & echo $!; wait'], { timeoutMs: 500 });
  assert.equal(r.signal, 'SIGKILL');
  const child = Number(r.output.trim());
  assert.ok(child > 0, `the child's pid was printed: ${r.output}`);
  assert.equal(await goneSoon(child), true, `the child ${child} (sleep 60) is not left running`);
});

test('an aborted command is killed with its children too', { timeout: 30_000 }, async () => {
  const ac = new AbortController();
  let printed = '';
  const done = runCommand('sh', ['-c', 'sleep 60 & echo $!; wait'], { signal: ac.signal });
  // The child's pid reaches us only in the result; abort once the shell has had a moment to fork.
  setTimeout(() => ac.abort(), 500);
  const r = await done;
  printed = r.output.trim();
  assert.equal(r.signal, 'SIGKILL');
  if (printed) assert.equal(await goneSoon(Number(printed)), true, `the child ${printed} is not left running`);
});

test('a timed-out dune build leaves no process of its own running', { timeout: 120_000 }, (t) => {
  return (async () => {
    const probe = await runCommand('dune', ['--version']).catch((e) => e);
    if (probe instanceof CommandNotFound) return t.skip('dune is not installed');
    const dir = mkdtempSync(join(tmpdir(), 'run-command-dune-'));
    try {
      writeFileSync(join(dir, 'dune-project'), '(lang dune 2.0)\n');
      // A rule whose action is a long-running process tree: dune → sh → sleep.
      writeFileSync(join(dir, 'dune'), '(rule (targets slow.txt) (action (system "sleep 60; echo done > slow.txt")))\n');
      const r = await runCommand('dune', ['build', './slow.txt'], { cwd: dir, timeoutMs: 4000 });
      assert.equal(r.signal, 'SIGKILL', `dune was stopped at its limit (${r.code}, ${r.output})`);
      assert.deepEqual(processesIn(dir), [], 'no process of the build is left in the project');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  })();
});

test('a missing command is CommandNotFound; output and exit code come back', async () => {
  await assert.rejects(runCommand('/nonexistent/tool', []), CommandNotFound);
  const r = await runCommand('sh', ['-c', 'echo out; echo err >&2; exit 3']);
  assert.equal(r.code, 3);
  assert.match(r.output, /out/);
  assert.match(r.output, /err/);
});
