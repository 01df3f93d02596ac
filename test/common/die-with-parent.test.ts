// A child started through dieWithParent (common/die-with-parent.ts) ends when its parent is killed
// with SIGKILL, which runs no exit handler; a child started as given outlives it. The vice target
// starts its x64sc that way, so a `serve` killed hard leaves no emulator behind (real x64sc; that
// case is skipped, with the reason, when x64sc is not on PATH).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../helpers/bin.js';
import { processAlive as alive, processGoneWithin as gone } from '../helpers/processes.js';

const fixture = join(repoRoot, 'test', 'common', 'fixtures', 'spawn-children.ts');
const x64sc = (process.env.PATH ?? '').split(delimiter).find((d) => d && existsSync(join(d, 'x64sc')));
const linux = process.platform === 'linux' && existsSync('/usr/bin/setpriv');

/** Starts the fixture parent and reads the pids it prints. */
async function parent(mode: string[]): Promise<{ child: ChildProcess; pids: Record<string, number> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, ...mode], { stdio: ['ignore', 'pipe', 'inherit'], cwd: repoRoot });
  let out = '';
  for await (const chunk of child.stdout!) {
    out += String(chunk);
    if (out.includes('\n')) break;
  }
  return { child, pids: JSON.parse(out.split('\n')[0]!) as Record<string, number> };
}

test('the parent killed with SIGKILL: the wrapped child ends, the plain one lives on', {
  skip: linux ? false : 'needs Linux and /usr/bin/setpriv',
}, async () => {
  const { child, pids } = await parent([]);
  const wrapped = pids.wrapped!;
  const plain = pids.plain!;
  try {
    assert.ok(alive(wrapped) && alive(plain));
    child.kill('SIGKILL');
    assert.equal(await gone(wrapped, 5000), true, 'the wrapped sleep ended with its parent');
    assert.equal(alive(plain), true, 'the plain sleep outlived it: the test can tell');
  } finally {
    for (const pid of [wrapped, plain]) if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
});

test("the vice target's x64sc ends with its parent", {
  skip: !linux
    ? 'needs Linux and /usr/bin/setpriv'
    : x64sc
      ? false
      : 'x64sc (the real VICE) is not on PATH; .ci/run puts ../shared/tools/vice there',
  timeout: 60_000,
}, async () => {
  const { child, pids } = await parent(['vice']);
  const pid = pids.x64sc!;
  try {
    assert.ok(alive(pid));
    child.kill('SIGKILL');
    assert.equal(await gone(pid, 10_000), true, 'x64sc ended with the process that started it');
  } finally {
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
});
