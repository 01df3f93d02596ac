// The smaller reliability findings of issue 36 (part 5): two Host headers get 400 (RFC 9112);
// a body that stops mid-way gets 408 and no error-level log; a corrupt probe row is a readable
// probe_unknown, not a raw 500; a dangling link named like the next orphaned/ slot does not stop
// start-up; temp folders of a killed service are removed at the next start.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import type { Logger } from '../../../common/index.js';
import { ServiceError } from '../../../services/ultimate-tool/http/service-error.js';
import { checkProbe } from '../../../services/ultimate-tool/safety/probes.js';
import { sweepDeadOwnersTemp } from '../../../services/ultimate-tool/jobs/owned-temp.js';
import { ORPHANED_DIR } from '../../../services/ultimate-tool/store/store.js';
import { bareProject, startBare } from './bare-service.js';

/** Sends raw bytes, returns what came back until the server closed or `untilText` arrived. */
function raw(port: number, bytes: string, untilText?: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    let got = '';
    s.on('data', (b) => {
      got += b.toString();
      if (untilText?.test(got)) {
        s.destroy();
        resolve(got);
      }
    });
    s.on('end', () => resolve(got));
    s.on('close', () => resolve(got));
    s.on('error', reject);
    s.write(bytes);
  });
}

function recordingLogger(): { logger: Logger; lines: Array<[string, string]> } {
  const lines: Array<[string, string]> = [];
  const at = (level: string) => (m: string) => {
    lines.push([level, m]);
  };
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } as Logger, lines };
}

test('two Host headers get 400; one good Host still 200', async () => {
  const { work, project, store } = bareProject();
  const svc = await startBare(project, store);
  try {
    const host = `127.0.0.1:${svc.port}`;
    const two = await raw(
      svc.port,
      `GET /v13/jobs HTTP/1.1\r\nHost: ${host}\r\nHost: evil.example:${svc.port}\r\nConnection: close\r\n\r\n`,
    );
    assert.match(two, /^HTTP\/1\.1 400 /);
    assert.match(two, /2 Host headers; exactly one is expected/);
    const one = await raw(svc.port, `GET /v13/jobs HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    assert.match(one, /^HTTP\/1\.1 200 /);
  } finally {
    await svc.stop();
    rmSync(work, { recursive: true, force: true });
  }
});

test('a body that stops mid-way gets 408 and the connection closes, with no error logged', async () => {
  const { work, project, store } = bareProject();
  const { logger, lines } = recordingLogger();
  const svc = await startBare(project, store, { bodyDeadlineMs: 300, logger });
  try {
    const answer = await raw(
      svc.port,
      `POST /v13/probes HTTP/1.1\r\nHost: 127.0.0.1:${svc.port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"strict`,
    );
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.match(answer, /"code":"request_timeout"/);
    assert.match(answer, /8 byte\(s\) received of 100 declared/);
    assert.deepEqual(
      lines.filter(([l]) => l === 'error'),
      [],
    );
    // The service answers the next request as ever.
    const next = await fetch(`${svc.url}/v13/jobs`);
    assert.equal(next.status, 200);
  } finally {
    await svc.stop();
    rmSync(work, { recursive: true, force: true });
  }
});

test('a corrupt probe row is a readable probe_unknown; pruning still works around it', async () => {
  const { work, project, store } = bareProject();
  const svc = await startBare(project, store);
  try {
    const db = new Database(join(store, 'service.sqlite3'));
    db.prepare("INSERT INTO probes (probe_id, doc) VALUES ('bad-probe', '{not json')").run();
    db.close();
    // The check every probe-taking route makes (jobs on the ultimate, captures) answers with the row named.
    assert.throws(
      () => checkProbe(svc.store, 'bad-probe', false, Date.now()),
      (e: unknown) =>
        e instanceof ServiceError &&
        e.code === 'probe_unknown' &&
        e.status === 422 &&
        /probe "bad-probe" cannot be used: its stored row is corrupted/.test(e.message),
    );
    assert.equal(svc.store.pruneProbes(Date.now()), 0);
    assert.throws(() => svc.store.getProbe('bad-probe'), /probe bad-probe in the store .* is corrupted/);
  } finally {
    await svc.stop();
    rmSync(work, { recursive: true, force: true });
  }
});

test('a dangling link named like the next orphaned/ slot does not stop start-up', async () => {
  const { work, project, store } = bareProject();
  try {
    const name = '0b7e5a8c-1d2f-4a3b-8c4d-5e6f7a8b9c0d';
    await (await startBare(project, store)).stop();
    mkdirSync(join(store, 'runs', name), { recursive: true });
    writeFileSync(join(store, 'runs', name, 'screen.txt'), 'LOST');
    mkdirSync(join(store, ORPHANED_DIR), { recursive: true });
    symlinkSync(join(work, 'nowhere'), join(store, ORPHANED_DIR, name));
    const svc = await startBare(project, store);
    await svc.stop();
    assert.equal(readFileSync(join(store, ORPHANED_DIR, `${name}.1`, 'screen.txt'), 'utf8'), 'LOST');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('temp folders of a dead owner are removed; a live owner’s and unnamed ones are kept', () => {
  const dir = mkdtempSync(join(tmpdir(), 'owned-temp-test-'));
  try {
    // A pid that was alive and is no more: a child that has exited.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(dead.stdout);
    const names = {
      deadBuild: `ultimate-build-${deadPid}-aB3dE9`,
      deadVice: `ultimate-vice-${deadPid}-Zz09xY`,
      live: `ultimate-build-${process.pid}-qwErty`,
      legacy: 'ultimate-build-Ab12Cd',
      other: `something-${deadPid}-abcdef`,
    };
    for (const n of Object.values(names)) mkdirSync(join(dir, n, 'project'), { recursive: true });
    const removed = sweepDeadOwnersTemp(dir);
    assert.deepEqual(removed.sort(), [join(dir, names.deadBuild), join(dir, names.deadVice)].sort());
    for (const n of [names.live, names.legacy, names.other]) assert.ok(existsSync(join(dir, n)), n);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
