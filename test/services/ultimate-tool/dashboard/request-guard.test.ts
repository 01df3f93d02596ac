// The refusals the dashboard made necessary, on a real service in-process (no targets needed):
// a Host header other than 127.0.0.1:<port> (DNS rebinding) is refused on every route and on the
// dashboard files; a POST that is not application/json (what an HTML form or a no-cors fetch from
// another site can send) is refused before anything is parsed or started. Plus the headers.
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { UltimateToolService } from '../../../../services/ultimate-tool/index.js';
import { repoRoot } from '../../../helpers/bin.js';

let svc: UltimateToolService;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dashboard-guard-'));
  svc = await UltimateToolService.start({
    projectDir: join(repoRoot, 'examples', 'c64-project'),
    storeDir: join(dir, 'store'),
    port: 0,
    vice: { command: [process.execPath, '-e', 'setTimeout(() => {}, 60000)'] },
    ultimate: null,
  });
});

after(async () => {
  await svc?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A raw request with exactly the headers given (fetch would not let a test forge Host). */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: svc.port, method, path, headers, setHost: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const host = () => `127.0.0.1:${svc.port}`;

test('a foreign Host header is refused on API routes and dashboard files (DNS rebinding)', async () => {
  for (const h of [`evil.example:${svc.port}`, `localhost:${svc.port}`, '127.0.0.1', `127.0.0.1:${svc.port + 1}`, `[::1]:${svc.port}`]) {
    for (const path of ['/v13/runs', '/', '/dashboard/app.js']) {
      const r = await raw('GET', path, { host: h });
      assert.equal(r.status, 403, `${h} ${path}`);
      const body = JSON.parse(r.text);
      assert.equal(body.error.code, 'host_not_allowed'); // one status per code (api/errors.ts)
      assert.equal(body.error.details.reason, 'host-not-allowed');
      assert.equal(body.error.details.expected_host, host());
    }
  }
  const none = await raw('GET', '/v13/runs', {});
  // Without Host, node's HTTP/1.1 parser refuses first (requireHostHeader), before any route.
  assert.equal(none.status, 400, 'a request without Host is refused too');
  // The exact loopback address:port is served (case of the header name does not matter).
  const good = await raw('GET', '/v13/runs', { Host: host() });
  assert.equal(good.status, 200, good.text);
});

test('a POST that is not application/json is refused before it is read: no job starts', async () => {
  const job = JSON.stringify({ test: 'sum-passes', targets: ['vice'] });
  for (const type of [
    undefined,
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonx',
  ]) {
    const r = await raw('POST', '/v13/jobs', { host: host(), ...(type ? { 'content-type': type } : {}) }, job);
    assert.equal(r.status, 415, `${type}: ${r.text}`);
    const body = JSON.parse(r.text);
    assert.equal(body.error.code, 'unsupported_content_type'); // one status per code (api/errors.ts)
    assert.equal(body.error.details.reason, 'content-type');
  }
  const jobs = JSON.parse((await raw('GET', '/v13/jobs', { host: host() })).text);
  assert.deepEqual(jobs.jobs, [], 'nothing was started');
  // The same body typed as JSON (with a charset parameter) is accepted.
  const ok = await raw('POST', '/v13/jobs', { host: host(), 'content-type': 'Application/JSON; charset=utf-8' }, job);
  assert.equal(ok.status, 201, ok.text);
  const after = JSON.parse((await raw('GET', '/v13/jobs', { host: host() })).text);
  assert.equal(after.jobs.length, 1);
  assert.equal(after.jobs[0].job_id, JSON.parse(ok.text).job.job_id);
});

test('security headers: strict CSP without inline script on the dashboard, nosniff everywhere; the dashboard is read-only', async () => {
  const page = await raw('GET', '/', { host: host() });
  assert.equal(page.status, 200, page.text);
  assert.match(String(page.headers['content-type']), /^text\/html/);
  const csp = String(page.headers['content-security-policy']);
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.equal(page.headers['x-content-type-options'], 'nosniff');
  assert.doesNotMatch(page.text, /<script>|<script [^>]*>[^<]/, 'no inline script in the page');
  const js = await raw('GET', '/dashboard/app.js', { host: host() });
  assert.equal(js.status, 200);
  assert.match(String(js.headers['content-type']), /^text\/javascript/);
  assert.doesNotMatch(js.text, /innerHTML|outerHTML|insertAdjacentHTML|document\.write/, 'the bundle never parses data as HTML');
  const api = await raw('GET', '/v13/runs', { host: host() });
  assert.equal(api.headers['x-content-type-options'], 'nosniff');
  assert.match(String(api.headers['content-security-policy']), /default-src 'none'/);
  const post = await raw('POST', '/', { host: host(), 'content-type': 'application/json' }, '{}');
  assert.equal(post.status, 405);
  const unknown = await raw('GET', '/dashboard/../service.sqlite3', { host: host() });
  assert.equal(unknown.status, 404);
});
