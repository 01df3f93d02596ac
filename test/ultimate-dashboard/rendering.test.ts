// How the dashboard renders data it does not control, in headless Chromium against an in-process
// service: (1) markup inside stored run fields (a record committed through the store's own API)
// arrives on screen as literal text and never becomes an element or runs; (2) the native-intents
// view with a populated answer shaped exactly as the NATIVE-API agreement says (the native routes
// live on another branch: here the browser's request to that one route is answered by the test,
// every other request still reaches the real service).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { RUN_RECORD_SCHEMA_VERSION, type RunRecord, UltimateToolService } from '../../engines/ultimate/service/index.js';
import { repoRoot } from '../helpers/bin.js';
import { launchChromium } from './browser.js';

const MARKUP = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>';
let svc: UltimateToolService;
let dir: string;
let browser: Browser;
let page: Page;

function hostileRun(): RunRecord {
  const at = new Date().toISOString();
  return {
    run_record_schema_version: RUN_RECORD_SCHEMA_VERSION,
    run_id: randomUUID(),
    job_id: MARKUP,
    test: MARKUP,
    target: 'vice',
    target_identity: { note: MARKUP },
    emulation: true,
    candidate: { artifact_sha256: null, artifact_name: MARKUP, build: {} },
    started_at: at,
    finished_at: at,
    timings: {},
    expectations: { observe: 'debug_register', debug_register: 128, screen_match: { text: MARKUP } },
    observations: { observe: MARKUP, debug_register_hex: MARKUP },
    status: 'failed',
    status_reason: MARKUP,
    screen_match: null,
    supporting_artifacts: [],
    evidence: [],
    crash_state: null,
    comparison: null,
  };
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dashboard-render-'));
  svc = await UltimateToolService.start({
    projectDir: join(repoRoot, 'examples', 'c64-project'),
    storeDir: join(dir, 'store'),
    port: 0,
    vice: null,
    ultimate: null,
  });
  browser = await launchChromium();
  page = await browser.newPage();
});

after(async () => {
  await browser?.close();
  await svc?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const ready = (view: string) => page.waitForSelector(`main[data-view="${view}"][data-state="ready"]`);

test('markup in stored run fields is shown as text: no element is created, nothing runs', { timeout: 60_000 }, async () => {
  const run = hostileRun();
  svc.store.insertRun(run);
  await page.goto(`${svc.url}/#/runs`);
  await ready('runs');
  const row = (await page.textContent('#runs-table tbody tr')) ?? '';
  assert.ok(row.includes(MARKUP), row);
  await page.click('#runs-table a.run-link');
  await ready('run');
  assert.equal(await page.textContent('#run-status-reason'), MARKUP);
  assert.ok(((await page.textContent('#expectations')) ?? '').includes(MARKUP));
  assert.equal(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined);
  assert.equal(await page.$$eval('main img, main script', (els) => els.length), 0);
});

test('native intents view, populated (answer shaped as the NATIVE-API agreement): states, reasons, paging link', {
  timeout: 60_000,
}, async () => {
  const intent = (state: string, reason: string | null) => ({
    intent_id: randomUUID(),
    preparation_id: randomUUID(),
    program: 'uart-hello',
    ue2_sha256: 'ab'.repeat(32),
    mode: 'standing',
    state,
    state_reason: reason,
    health_gate: state === 'suspended' ? 'pending' : 'none',
    identity: { device_host: '127.0.0.1:8080', product: 'Ultimate 64 Elite II', firmware: '3.12', fpga: '121', api_version: '0.1' },
    created_at: new Date().toISOString(),
    expires_at: null,
    max_runs: 3,
    runs_started: 1,
    last_run_id: null,
  });
  const intents = [intent('active', null), intent('suspended', `upload acceptance uncertain ${MARKUP}`)];
  let asked = '';
  await page.route(/\/v13\/native\/intents(\?.*)?$/, (route) => {
    asked = route.request().url();
    return route.fulfill({
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ api_schema_version: 13, intents, next_cursor: 'opaque-cursor' }),
    });
  });
  await page.goto(`${svc.url}/#/native?state=`);
  await ready('native');
  assert.match(asked, /limit=50/);
  const states = await page.$$eval('#native-intents .intent-state', (els) => els.map((e) => e.textContent));
  assert.deepEqual(states, ['active', 'suspended']);
  const rows = await page.$$eval('#native-intents tbody tr', (trs) => trs.map((t) => t.textContent ?? ''));
  assert.ok(rows[1]?.includes(MARKUP) && rows[1].includes('pending') && rows[1].includes('1 / 3'), rows[1]);
  assert.match((await page.getAttribute('#native-next', 'href')) ?? '', /cursor=opaque-cursor/);
  await page.selectOption('#native-state', 'suspended');
  await page.waitForFunction(() => location.hash.includes('state=suspended') && document.querySelector('main')?.dataset.state === 'ready');
  assert.match(asked, /state=suspended/);
  assert.equal(await page.$$eval('main img, main script', (els) => els.length), 0);
  await page.unroute(/\/v13\/native\/intents(\?.*)?$/);
});
