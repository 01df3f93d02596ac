// How the dashboard renders data it does not control, in headless Chromium against an in-process
// service: (1) markup inside stored run fields (a record committed through the store's own API)
// arrives on screen as literal text and never becomes an element or runs. (The native intents view
// with real intents: native-view.test.ts.)
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { RUN_RECORD_SCHEMA_VERSION, type RunRecord, UltimateToolService } from '../../../../services/ultimate-tool/index.js';
import { repoRoot } from '../../../helpers/bin.js';
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
