// The fresh AOT member's private workspace and process groups: cancellation in the middle of a
// build (a stand-in compiler, and the real compiler while rustc runs) and in the middle of a run,
// a failing build — each time the product's whole process group and the workspace are checked
// gone. The wall clock and the other product bounds are shared with the Topaz VM (bounds.test.ts).

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFreshAotMember, type AotRunOptions } from '../../../../engines/lispex/external/aot-route.js';
import { buildExternalRequest } from '../../../../engines/lispex/external/derivation.js';
import { processGroupAlive } from '../../../../engines/lispex/external/product-process.js';
import { PRODUCTS_DIR, requireTopaz } from './harness.js';

async function waitFor(condition: () => boolean, deadlineMs = 10_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not reached before the deadline');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('fresh AOT workspace and process groups', { timeout: 180_000 }, () => {
  let dir: string;
  const compiler = async (name: string, compile: string): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, `#!/bin/sh\nif [ "$1" = "--compile" ]; then\n${compile}\nfi\nexit 64\n`);
    await chmod(path, 0o755);
    return path;
  };
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lispex-aot-test-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  /** Run the member, aborting once `phase` has started; report what was observed. */
  /** Command names of the live processes in a process group (from /proc). */
  function groupCommands(pgid: number): string[] {
    const names: string[] = [];
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const close = stat.lastIndexOf(')');
        const fields = stat.slice(close + 2).split(' ');
        if (Number(fields[2]) === pgid) names.push(stat.slice(stat.indexOf('(') + 1, close));
      } catch {
        // the process ended while we looked
      }
    }
    return names;
  }

  /**
   * Runs a request and cancels it in `phase`: once the phase's process group exists and, when
   * `whenRunning` is given, once a process of that name runs in it (a condition, not a delay).
   */
  async function cancelDuring(
    phase: 'build' | 'run',
    options: Omit<AotRunOptions, 'request' | 'wallClockMs' | 'maxOutputBytes'>,
    whenRunning?: string,
  ) {
    const controller = new AbortController();
    let workspace = '';
    const groups: number[] = [];
    const result = await runFreshAotMember({
      ...options,
      request: buildExternalRequest('(+ 1 2)', undefined, 'source'),
      wallClockMs: 60_000,
      maxOutputBytes: 1 << 20,
      signal: controller.signal,
      onWorkspace: (path) => {
        workspace = path;
      },
      onProcessGroup: (p, pgid) => {
        groups.push(pgid);
        if (p !== phase) return;
        if (!whenRunning) return controller.abort();
        const poll = setInterval(() => {
          if (controller.signal.aborted) return clearInterval(poll);
          if (groupCommands(pgid).some((c) => c.startsWith(whenRunning))) {
            clearInterval(poll);
            controller.abort();
          }
        }, 2);
      },
    });
    return { result, workspace, groups };
  }

  test('cancellation mid-build kills the compiler and its children; the workspace is removed', async () => {
    const hang = await compiler('hang-build', '/bin/sleep 1000 &\nexec /bin/sleep 1000');
    const { result, workspace, groups } = await cancelDuring('build', { compiler: hang, rustc: '/bin/false' }, 'sleep');
    assert.equal(result.outcome.kind === 'failed' && result.outcome.reason, 'cancelled');
    assert.equal(groups.length, 1, 'the run never started');
    assert.ok(workspace.length > 0);
    assert.equal(existsSync(workspace), false);
    assert.equal(result.workspaceRemoved, true);
    await waitFor(() => !processGroupAlive(groups[0]!));
  });

  test('cancellation mid-run kills the built program and its children; the workspace is removed', async () => {
    const build = await compiler(
      'hang-run',
      `printf '#!/bin/sh\\n/bin/sleep 1000 &\\nexec /bin/sleep 1000\\n' > "$2/program"\n/bin/chmod 755 "$2/program"\nexit 0`,
    );
    const { result, workspace, groups } = await cancelDuring('run', { compiler: build, rustc: '/bin/false' }, 'sleep');
    assert.equal(result.outcome.kind === 'failed' && result.outcome.reason, 'cancelled');
    assert.equal(groups.length, 2, 'build, then run');
    assert.equal(existsSync(workspace), false);
    for (const pgid of groups) await waitFor(() => !processGroupAlive(pgid));
  });

  test('a failing build is a member failure naming the build; the workspace is removed', async () => {
    const failing = await compiler('fail', 'echo "rustc: error" >&2\nexit 70');
    let workspace = '';
    const result = await runFreshAotMember({
      compiler: failing,
      rustc: '/bin/false',
      request: buildExternalRequest('(+ 1 2)', undefined, 'source'),
      wallClockMs: 5_000,
      maxOutputBytes: 1 << 20,
      onWorkspace: (p) => {
        workspace = p;
      },
    });
    assert.equal(result.outcome.kind === 'failed' && result.outcome.reason, 'crashed');
    assert.match(result.outcome.kind === 'failed' ? result.outcome.message : '', /^build: .*status 70.*rustc: error/);
    assert.equal(existsSync(workspace), false);
  });

  test('a workspace that cannot be removed is reported (the court then fails closed)', async () => {
    const failing = await compiler('fail-again', 'exit 70');
    let workspace = '';
    const result = await runFreshAotMember({
      compiler: failing,
      rustc: '/bin/false',
      request: buildExternalRequest('1', undefined, 'source'),
      wallClockMs: 5_000,
      maxOutputBytes: 1 << 20,
      onWorkspace: (p) => {
        workspace = p;
      },
      removeWorkspace: () => Promise.reject(new Error('EBUSY')),
    });
    assert.equal(result.workspaceRemoved, false);
    assert.equal(existsSync(workspace), true);
    await rm(workspace, { recursive: true, force: true });
  });

  test('the real compiler, cancelled while rustc builds: rustc dies with the group, workspace removed', async () => {
    requireTopaz();
    const rustc = readFileSync(join(PRODUCTS_DIR, 'topaz-runtime', 'RUSTC'), 'utf8').trim();
    const { result, workspace, groups } = await cancelDuring('build', { compiler: join(PRODUCTS_DIR, 'topaz-compiler'), rustc }, 'rustc');
    assert.equal(result.outcome.kind === 'failed' && result.outcome.reason, 'cancelled');
    assert.equal(existsSync(workspace), false);
    await waitFor(() => !processGroupAlive(groups[0]!));
  });

  test('the real compiler builds and runs a fresh product per request', async () => {
    requireTopaz();
    const rustc = readFileSync(join(PRODUCTS_DIR, 'topaz-runtime', 'RUSTC'), 'utf8').trim();
    let workspace = '';
    const result = await runFreshAotMember({
      compiler: join(PRODUCTS_DIR, 'topaz-compiler'),
      rustc,
      request: buildExternalRequest('(define (f n) (if (= n 0) 1 (* n (f (- n 1))))) (f 25)', undefined, 'source'),
      wallClockMs: 5_000,
      maxOutputBytes: 1 << 20,
      onWorkspace: (p) => {
        workspace = p;
      },
    });
    assert.equal(result.outcome.kind, 'completed');
    if (result.outcome.kind === 'completed') {
      assert.equal(result.outcome.observation.values[0]?.printed, '15511210043330985984000000');
      assert.equal(result.outcome.observation.engine.implementation, 'fresh-aot');
    }
    assert.equal(existsSync(workspace), false);
  });
});
