// The native intents view against the real native flow: a service on a virtual Ultimate 64 Elite II
// (the native-flow harness) holding intents in four states that the flow itself produced — a
// standing intent after a real native run (suspended, health gate pending), a revoked one, an
// active one-shot, and a one-shot that ran (consumed). The browser must show exactly what the API
// says, filter by state through the API, and open one intent with its run.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type Json, type NativeHarness, startNativeHarness } from '../jobs/native/harness.js';
import { launchChromium } from './browser.js';
import { apiPages, browserHistory, forwardTwiceBackTwice, type PagedView, settled, shown } from './paging.js';

let h: NativeHarness;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];
const ids: Record<'standing' | 'revoked' | 'active' | 'consumed', string> = { standing: '', revoked: '', active: '', consumed: '' };
let standingRunId = '';

async function createIntent(extra: Json): Promise<string> {
  const r = await h.intent(extra);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.intent.intent_id as string;
}

async function runOnce(intentId: string): Promise<string> {
  const r = await h.post('/v13/native/runs', { intent_id: intentId, device_host: h.host });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const run = await h.waitRun(r.body.native_run.native_run_id);
  assert.equal(run.state, 'completed', JSON.stringify(run));
  await h.powerCycle();
  return run.native_run_id as string;
}

before(
  async () => {
    h = await startNativeHarness();
    ids.standing = await createIntent({ mode: 'standing', confirmed_standing_authorization: true, max_runs: 3 });
    standingRunId = await runOnce(ids.standing);
    ids.revoked = await createIntent({ mode: 'one-shot' });
    assert.equal((await h.post(`/v13/native/intents/${ids.revoked}/revoke`, {})).status, 200);
    ids.consumed = await createIntent({ mode: 'one-shot' });
    await runOnce(ids.consumed);
    ids.active = await createIntent({ mode: 'one-shot' });
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
  },
  { timeout: 120_000 },
);

after(async () => {
  await browser?.close();
  await h?.close();
});

const ready = (view: string) => page.waitForSelector(`main[data-view="${view}"][data-state="ready"]`);
const stateOf = async (intentId: string) => (await h.get(`/v13/native/intents/${intentId}`)).body.intent.state as string;

test('the intents view lists every intent with the state the API reports', { timeout: 60_000 }, async () => {
  assert.equal(await stateOf(ids.standing), 'suspended');
  assert.equal(await stateOf(ids.revoked), 'revoked');
  assert.equal(await stateOf(ids.consumed), 'consumed');
  assert.equal(await stateOf(ids.active), 'active');
  await page.goto(`${h.svc.url}/#/native`);
  await ready('native');
  const rows = await page.$$eval('#native-intents tbody tr', (trs) =>
    trs.map((t) => ({
      id: t.querySelector('a.intent-link')?.textContent ?? '',
      state: t.querySelector('.intent-state')?.textContent ?? '',
      text: t.textContent ?? '',
    })),
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  assert.equal(rows.length, 4);
  assert.equal(byId.get(ids.standing)?.state, 'suspended');
  assert.equal(byId.get(ids.revoked)?.state, 'revoked');
  assert.equal(byId.get(ids.consumed)?.state, 'consumed');
  assert.equal(byId.get(ids.active)?.state, 'active');
  // The standing intent after its run: gate pending, 1 of 3 runs, its reason shown.
  assert.match(byId.get(ids.standing)?.text ?? '', /pending/);
  assert.match(byId.get(ids.standing)?.text ?? '', /1 \/ 3/);
  assert.match(byId.get(ids.standing)?.text ?? '', /power-cycle it, then pass the C64 health check/);
  assert.equal(await page.$('#native-empty'), null);
  const png = await page.screenshot({ fullPage: true });
  assert.ok(png.length > 1000 && png.subarray(1, 4).toString() === 'PNG');
});

test('the state filter asks the API and shows only that state', { timeout: 60_000 }, async () => {
  await page.selectOption('#native-state', 'revoked');
  await page.waitForFunction(() => location.hash.includes('state=revoked'));
  await settled(page);
  const states = await page.$$eval('#native-intents .intent-state', (els) => els.map((e) => e.textContent));
  assert.deepEqual(states, ['revoked']);
  await page.selectOption('#native-state', 'exhausted');
  await page.waitForFunction(() => location.hash.includes('state=exhausted'));
  await settled(page);
  assert.match((await page.textContent('#native-empty')) ?? '', /No native intent is exhausted/);
});

const NATIVE: PagedView = { id: 'native', rowKeys: '#native-intents a.intent-link' };
const intentIds = (b: { intents: Array<{ intent_id: string }> }) => b.intents.map((i) => i.intent_id);

test("paging one intent a page: next twice and previous twice show the API's own pages; browser history; the state filter goes to page 1", {
  timeout: 60_000,
}, async () => {
  const pages = await apiPages(h.get, '/v13/native/intents?limit=1', intentIds);
  assert.equal(pages.length, 4);
  assert.deepEqual(new Set(pages.flat()), new Set(Object.values(ids)));
  await page.goto(`${h.svc.url}/#/native?limit=1`);
  await settled(page);
  await forwardTwiceBackTwice(page, NATIVE, pages);
  await browserHistory(page, NATIVE, pages);

  await page.click('#native-next');
  await settled(page);
  assert.equal((await shown(page, NATIVE)).number, 'page 2');
  await page.selectOption('#native-state', 'consumed');
  await settled(page);
  assert.deepEqual(await shown(page, NATIVE), { number: 'page 1', keys: [ids.consumed], previous: false });
  assert.equal(await page.evaluate(() => location.hash), '#/native?state=consumed&limit=1');
});

test('one intent: its bound identity and its native run', { timeout: 60_000 }, async () => {
  await page.goto(`${h.svc.url}/#/native`);
  await ready('native');
  await page.click(`a.intent-link:text("${ids.standing}")`);
  await page.waitForSelector('#intent-state');
  await ready('native');
  assert.equal(await page.textContent('#intent-state'), 'suspended');
  const runs = await page.$$eval('#intent-runs tbody tr', (trs) => trs.map((t) => t.textContent ?? ''));
  assert.equal(runs.length, 1);
  assert.ok(runs[0]?.includes(standingRunId) && runs[0].includes('completed'), runs[0]);
  const fields = (await page.textContent('#intent-fields')) ?? '';
  assert.ok(fields.includes('standing') && fields.includes('pending'), fields);
  assert.deepEqual(consoleErrors, []);
});
