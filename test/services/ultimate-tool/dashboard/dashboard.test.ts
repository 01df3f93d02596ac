// The dashboard in headless Chromium against the real service process (`ultimate-tool serve
// --virtual-device`, `ultimate-tool virtual-vice` as the emulator) holding real runs of the example
// project. Every view is opened by clicking through it; each is screenshotted (non-empty PNGs under
// the test's temp dir) and what it shows is asserted. Waits are conditions (selectors, functions).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ROUTE_PATHS } from '../../../../services/ultimate-tool/api/paths.js';
import { type UltimateStack, startUltimateStack } from '../../../helpers/ultimate-stack.js';
import { launchChromium } from './browser.js';
import { type ExampleRuns, makeExampleRuns } from './example-runs.js';
import { apiPages, browserHistory, forwardTwiceBackTwice, type PagedView, settled, shown } from './paging.js';
import { type ServiceApi, serviceApi } from './service-api.js';

let stack: UltimateStack;
let api: ServiceApi;
let runs: ExampleRuns;
let browser: Browser;
let page: Page;
const requested: string[] = [];
const consoleErrors: string[] = [];

before(
  async () => {
    stack = await startUltimateStack('dashboard');
    api = serviceApi(stack.serviceUrl);
    runs = await makeExampleRuns(api);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    page.on('request', (r) => requested.push(new URL(r.url()).pathname));
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
  },
  { timeout: 300_000 },
);

after(async () => {
  await browser?.close();
  await stack?.close();
});

async function ready(view: string): Promise<void> {
  await page.waitForSelector(`main[data-view="${view}"][data-state="ready"]`, { timeout: 30_000 });
}

/** A full-page screenshot under the test's temp dir; asserts it is a non-empty PNG. */
async function shot(name: string): Promise<void> {
  const path = join(stack.work, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  const bytes = readFileSync(path);
  assert.ok(bytes.length > 1000, `${name}.png has ${bytes.length} bytes`);
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${name}.png is a PNG`);
}

const texts = (selector: string) => page.$$eval(selector, (els) => els.map((e) => e.textContent ?? ''));
/** The cells of each row of a table's body, as text. */
const cellsOf = (selector: string) =>
  page.$$eval(`${selector} > tbody > tr`, (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent ?? '')));
const hex8 = (n: number) => `$${n.toString(16).toUpperCase().padStart(2, '0')}`;

/** The run's $D7FF writes as the dashboard must show them: number, value in hex, cycle, cycles since the previous write. */
function expectedWriteRows(writes: Array<{ value: number; cycle: number | null }>): string[][] {
  return writes.map((w, i) => {
    const prev = writes[i - 1];
    const delta = prev && w.cycle !== null && prev.cycle !== null ? String(w.cycle - prev.cycle) : '—';
    return [String(i + 1), hex8(w.value), w.cycle === null ? '—' : String(w.cycle), delta];
  });
}

test('runs view: every example run listed; filters by status, target and test narrow it; cursor paging', { timeout: 60_000 }, async () => {
  await page.goto(`${stack.serviceUrl}/`);
  await ready('runs');
  await shot('runs');
  const all = await texts('#runs-table tbody tr');
  assert.equal(all.length, 7, all.join('\n')); // 4 vice jobs, 1 capture, 2 matrix runs
  const statuses = await texts('#runs-table tbody .status');
  assert.deepEqual([...statuses].sort(), ['crashed', 'failed', 'passed', 'passed', 'passed', 'passed', 'passed']);

  await page.selectOption('#filter-status', 'crashed');
  await page.waitForFunction(() => location.hash.includes('status=crashed'));
  await settled(page);
  assert.deepEqual(await texts('#runs-table tbody .status'), ['crashed']);
  assert.ok((await texts('#runs-table tbody tr'))[0]?.includes('brk-crash'));

  await page.selectOption('#filter-status', '');
  await page.waitForFunction(() => !location.hash.includes('status='));
  await settled(page);
  await page.selectOption('#filter-target', 'ultimate');
  await page.waitForFunction(() => location.hash.includes('target=ultimate'));
  await settled(page);
  const ultimate = await texts('#runs-table tbody tr');
  assert.equal(ultimate.length, 2, ultimate.join('\n')); // the capture and the matrix's Ultimate run
  await page.waitForSelector('#filter-test option[value="arithmetic-fails"]', { state: 'attached' });
  await page.selectOption('#filter-target', '');
  await page.waitForFunction(() => !location.hash.includes('target='));
  await settled(page);
  await page.waitForSelector('#filter-test option[value="arithmetic-fails"]', { state: 'attached' });
  await page.selectOption('#filter-test', 'arithmetic-fails');
  await page.waitForFunction(() => location.hash.includes('test=arithmetic-fails'));
  await settled(page);
  assert.deepEqual(await texts('#runs-table tbody .status'), ['failed']);
  await shot('runs-filtered');

  // Paging: three runs a page, following next_cursor.
  await page.goto(`${stack.serviceUrl}/#/runs?limit=3`);
  await ready('runs');
  const first = await texts('#runs-table tbody .run-link');
  assert.equal(first.length, 3);
  await page.click('#runs-next');
  await page.waitForFunction(() => location.hash.includes('cursor='));
  await settled(page);
  const second = await texts('#runs-table tbody .run-link');
  assert.equal(second.length, 3);
  assert.ok(
    second.every((id) => !first.includes(id)),
    'the second page holds other runs',
  );
});

const RUNS: PagedView = { id: 'runs', rowKeys: '#runs-table tbody .run-link' };

test("runs view: next twice and previous twice show the API's own pages; browser back/forward and reload; a filter change goes to page 1", {
  timeout: 60_000,
}, async () => {
  const pages = await apiPages(api.get, '/v13/runs?limit=2', (b) => b.runs.map((r: { run_id: string }) => r.run_id));
  assert.deepEqual(
    pages.map((p) => p.length),
    [2, 2, 2, 1],
  ); // the seven example runs
  await page.goto(`${stack.serviceUrl}/#/runs?limit=2`);
  await settled(page);
  assert.equal(await page.$('#runs-first'), null);
  await forwardTwiceBackTwice(page, RUNS, pages);
  await browserHistory(page, RUNS, pages);

  // Page 2 of all runs, then a status filter: page 1 of the passed runs, with no way back.
  await page.click('#runs-next');
  await settled(page);
  assert.equal((await shown(page, RUNS)).number, 'page 2');
  const passed = await apiPages(api.get, '/v13/runs?limit=2&status=passed', (b) => b.runs.map((r: { run_id: string }) => r.run_id));
  await page.selectOption('#filter-status', 'passed');
  await settled(page);
  assert.deepEqual(await shown(page, RUNS), { number: 'page 1', keys: passed[0], previous: false });
  assert.equal(await page.evaluate(() => location.hash), '#/runs?status=passed&limit=2');
  await shot('runs-paged');
});

async function openRun(runId: string): Promise<void> {
  await page.goto(`${stack.serviceUrl}/#/runs`);
  await ready('runs');
  await page.click(`#runs-table a.run-link:text("${runId}")`);
  await ready('run');
}

test('one passing run: status, expectations beside observations, the screenshot loaded, evidence and artifacts', {
  timeout: 60_000,
}, async () => {
  await openRun(runs.passed);
  assert.equal(await page.textContent('#run-status'), 'passed');
  const width = await page.$eval('#screenshot', (img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth);
  assert.equal(width, 384); // the 384×264 screenshot rendered by the service
  // Hex, not decimal: the expected and the observed pass value are both $80.
  const expectRows = await cellsOf('#expectations');
  assert.deepEqual(
    expectRows.find((r) => r[0] === 'debug_register'),
    ['debug_register', '$80', '$80'],
  );
  // Tables, not JSON blobs; durations rounded (at most one decimal).
  assert.equal(await page.$$eval('pre.json', (p) => p.length), 0);
  const timings = await cellsOf('#run-timings');
  assert.ok(timings.length >= 3);
  for (const [phase, d] of timings) assert.match(d ?? '', /^\d+(\.\d)? ms$|^\d+\.\d\d s$/, `${phase}: ${d}`);
  const observed = await cellsOf('#observations');
  assert.deepEqual(
    observed.find((r) => r[0] === 'debug_register'),
    ['debug_register', '$80'],
  );
  // The $D7FF writes, each with its cycle and the distance from the one before, exactly as recorded.
  const record = (await api.get(`/v13/runs/${runs.passed}`)).body.run;
  const writes = record.observations.debug_register_writes as Array<{ value: number; cycle: number | null }>;
  assert.ok(writes.length >= 1 && writes.at(-1)?.value === 0x80, JSON.stringify(writes));
  assert.deepEqual(await cellsOf('#writes-table'), expectedWriteRows(writes));
  const evidence = await texts('#evidence tbody tr');
  assert.ok(evidence.some((r) => r.startsWith('screenshot.png')));
  assert.ok((await texts('#supporting-artifacts tbody tr')).some((r) => r.startsWith('prg')));
  await page.waitForSelector('#diagnostic-fields');
  await page.waitForSelector('#diagnostic-items p');
  // Showing a text evidence file.
  await page.click('button.evidence-open[data-name="screen.txt"]');
  await page.waitForSelector('#evidence-text');
  assert.ok(((await page.textContent('#evidence-text')) ?? '').length > 0);
  await shot('run-passed');
});

test('a run with several $D7FF writes shows the sequence with the cycle distances between them', { timeout: 60_000 }, async () => {
  const pair = (await api.get(`/v13/checkpoint-comparisons/${runs.checkpointComparison}`)).body.checkpoint_comparison;
  const viceRun = [pair.baseline, pair.candidate].find((x: { target: string }) => x.target === 'vice').run_id as string;
  const record = (await api.get(`/v13/runs/${viceRun}`)).body.run;
  const writes = record.observations.debug_register_writes as Array<{ value: number; cycle: number | null }>;
  // checkpoint-probe: markers $01 and $02 (each acknowledged by the harness), then the pass value.
  assert.ok(writes.length >= 3, JSON.stringify(writes));
  assert.ok(
    writes.every((w) => typeof w.cycle === 'number'),
    `the vice target counts cycles: ${JSON.stringify(writes)}`,
  );
  await page.goto(`${stack.serviceUrl}/#/run/${viceRun}`);
  await ready('run');
  const rows = await cellsOf('#writes-table');
  assert.deepEqual(rows, expectedWriteRows(writes));
  assert.ok(
    rows.slice(1).every((r) => /^\d+$/.test(r[3] ?? '')),
    'every write after the first has its distance',
  );
  assert.match((await page.textContent('#writes-note')) ?? '', /cycles from the program's first instruction/);
  await shot('run-writes');
});

test('a failed run and a screen_match run show their status and the screen match', { timeout: 60_000 }, async () => {
  await openRun(runs.failed);
  assert.equal(await page.textContent('#run-status'), 'failed');
  assert.match((await page.textContent('#run-status-reason')) ?? '', /\$83|fail|3/);
  await shot('run-failed');
  await openRun(runs.screen);
  assert.equal(await page.textContent('#run-status'), 'passed');
  const sm = (await texts('#expectations > tbody > tr')).find((r) => r.startsWith('screen_match'));
  assert.ok(sm?.includes('HELLO FROM THE C64 PROJECT') && /matched\s*true/.test(sm), sm);
  // The screen text reads as the screen does (one line per row), not as a JSON list.
  assert.match((await page.textContent('#observations pre.screen')) ?? '', /HELLO FROM THE C64 PROJECT/);
  await page.waitForFunction(() => ((document.querySelector('#screenshot') as HTMLImageElement | null)?.naturalWidth ?? 0) > 0);
  await shot('run-screen');
});

test('a crashed run shows its crash report: BRK at the site, resolved to the label "broken", registers', { timeout: 60_000 }, async () => {
  await openRun(runs.crashed);
  assert.equal(await page.textContent('#run-status'), 'crashed');
  await page.waitForSelector('#crash-fields');
  const fieldsText = (await texts('#crash-fields tr')).join('\n');
  assert.match(fieldsText, /kind\s*brk/);
  assert.match(fieldsText, /site\s*\$[0-9A-F]{4}/);
  assert.match(fieldsText, /broken/);
  assert.ok((await texts('#crash-registers tr')).some((r) => r.startsWith('pc')));
  // Registers in hex, as the crash report holds them.
  const report = (await api.get(`/v13/runs/${runs.crashed}/crash-report`)).body;
  const regs = await cellsOf('#crash-registers');
  assert.deepEqual(
    regs.find((r) => r[0] === 'a'),
    ['a', hex8(report.registers.a)],
  );
  assert.deepEqual(
    regs.find((r) => r[0] === 'pc'),
    ['pc', `$${report.registers.pc.toString(16).toUpperCase().padStart(4, '0')}`],
  );
  await shot('run-crashed');
});

test('timeline view: first page, next page moves the cursor and the rows, filters narrow the rows', { timeout: 60_000 }, async () => {
  await openRun(runs.timeline);
  await page.click('#timeline-link');
  await ready('timeline');
  assert.equal(await page.textContent('#timeline-cursor'), '0:0');
  const firstRows = await texts('#timeline-rows tbody tr');
  assert.equal(firstRows.length, 256);
  await shot('timeline');
  await page.click('#timeline-next');
  await page.waitForFunction(() => document.querySelector('#timeline-cursor')?.textContent !== '0:0');
  await settled(page);
  const cursor = (await page.textContent('#timeline-cursor')) ?? '';
  const secondRows = await texts('#timeline-rows tbody tr');
  assert.ok(secondRows.length > 0);
  assert.ok(secondRows[0]?.startsWith(cursor), `the page starts at its cursor ${cursor}: ${secondRows[0]}`);
  assert.notEqual(secondRows[0], firstRows[0]);

  // Writes to $D7FF only: the progress markers and the pass value.
  await page.fill('#timeline-address_from', '$D7FF');
  await page.fill('#timeline-address_to', '$D7FF');
  await page.selectOption('#timeline-access', 'write');
  await page.click('#timeline-apply');
  await page.waitForFunction(() => location.hash.includes('access=write'));
  await settled(page);
  // Columns: cursor, cycle, Δ cycles, access, address, data, lines, source, program.
  const cells = await cellsOf('#timeline-rows');
  const bus = cells.filter((c) => c[3] === 'read' || c[3] === 'write' || c[3] === 'vic');
  assert.ok(bus.length > 0 && bus.length < firstRows.length, `filtered rows: ${bus.length}`);
  assert.ok(
    bus.every((c) => c[3] === 'write' && c[4] === '$D7FF' && /^\$[0-9A-F]{2}$/.test(c[5] ?? '')),
    JSON.stringify(bus.slice(0, 3)),
  );
  // Each write's cycle as the API gives it, and the distance from the write above.
  const apiWrites = (
    await api.get(`/v13/runs/${runs.timeline}/timeline?address_from=$D7FF&address_to=$D7FF&access=write`)
  ).body.rows.filter((r: { kind: string }) => r.kind === 'bus');
  assert.equal(apiWrites.length, bus.length);
  assert.ok(
    apiWrites.every((r: { cycle: unknown }) => typeof r.cycle === 'number'),
    'every write of the program has its cycle',
  );
  bus.forEach((c, i) => {
    assert.equal(c[1], String(apiWrites[i].cycle));
    assert.equal(c[2], i === 0 ? '' : `+${apiWrites[i].cycle - apiWrites[i - 1].cycle}`);
  });
  await shot('timeline-filtered');

  // Reads of the program's own code resolve to the ca65 source lines that produced those bytes.
  await page.fill('#timeline-address_from', '$0801');
  await page.fill('#timeline-address_to', '$08FF');
  await page.selectOption('#timeline-access', 'read');
  await page.click('#timeline-apply');
  await page.waitForFunction(() => location.hash.includes('access=read'));
  await settled(page);
  const code = await cellsOf('#timeline-rows');
  const reads = code.filter((c) => c[3] === 'read');
  assert.ok(reads.length > 0, 'code reads found');
  assert.ok(
    reads.some((c) => /timeline\.s:\d+/.test(c[7] ?? '')),
    JSON.stringify(reads.slice(0, 3)),
  );
  // A read before the program started is marked so, and is never attributed to its source.
  for (const c of code) if (c[8] === 'before start') assert.equal(c[7], '', JSON.stringify(c));
});

test('timeline: rows before the program started are marked; the context filter scans as far as the address filter', {
  timeout: 60_000,
}, async () => {
  const path = `/v13/runs/${runs.timeline}/timeline`;
  const first = (await api.get(`${path}?limit=50`)).body;
  // The capture starts before the reset: its first rows are the boot's, not the program's.
  assert.equal(first.cycle_origin, 'program_start');
  assert.equal(first.cycle_unit, 'clock', 'captures are made in "6510 & VIC" mode, the mode every run is judged in');
  assert.match(first.program_start?.cursor ?? '', /^\d+:\d+$/);
  const bus = first.rows.filter((r: { kind: string }) => r.kind === 'bus');
  assert.ok(
    bus.length > 0 &&
      bus.every(
        (r: { before_program_start: boolean; source: unknown; cycle: number }) =>
          r.before_program_start && r.source === null && r.cycle < 0,
      ),
  );
  const [startOrdinal, startEntry] = first.program_start.cursor.split(':').map(Number);
  const atStart = (await api.get(`${path}?limit=1&cursor=${first.program_start.cursor}`)).body.rows[0];
  assert.equal(atStart.cycle, 0);
  assert.equal(atStart.before_program_start, false);
  assert.ok(startOrdinal > 0 || startEntry > 50, 'the program started after the first page');

  // A source file of the program; with limit 5 the context filter must find 5 of its rows although
  // the first thousands of rows are the boot's (it used to filter only the first `limit` rows).
  const file = atStart.source?.file as string;
  assert.ok(file?.endsWith('timeline.s'), JSON.stringify(atStart));
  const ctx = (await api.get(`${path}?limit=5&context=${encodeURIComponent(file)}`)).body;
  const ctxBus = ctx.rows.filter((r: { kind: string }) => r.kind === 'bus');
  assert.equal(ctxBus.length, 5, JSON.stringify(ctx).slice(0, 400));
  assert.ok(
    ctxBus.every((r: { source: { file: string }; before_program_start: boolean }) => r.source.file === file && !r.before_program_start),
  );

  // The dashboard: page 1 shows the marking and where the program started; the context filter.
  await page.goto(`${stack.serviceUrl}/#/timeline/${runs.timeline}?limit=50`);
  await ready('timeline');
  const rows = await cellsOf('#timeline-rows');
  assert.ok(rows.filter((c) => c[3] === 'read' || c[3] === 'write').every((c) => c[8] === 'before start'));
  const origin = (await page.textContent('#timeline-origin')) ?? '';
  assert.match(origin, new RegExp(`program started at ${first.program_start.cursor}`));
  assert.match(origin, /^clocks from the program's first instruction/);
  assert.equal(await page.$$eval('#timeline-rows tr.before-start', (t) => t.length), bus.length);
  await page.fill('#timeline-context', file);
  await page.fill('#timeline-limit', '5');
  await page.click('#timeline-apply');
  await page.waitForFunction(() => location.hash.includes('context='));
  await settled(page);
  const shownRows = (await cellsOf('#timeline-rows')).filter((c) => c[3] === 'read' || c[3] === 'write');
  assert.equal(shownRows.length, 5);
  assert.ok(shownRows.every((c) => (c[7] ?? '').startsWith(`${file}:`) && c[8] === ''));
  await shot('timeline-context');
});

const TIMELINE: PagedView = { id: 'timeline', rowKeys: '#timeline-rows tbody tr td:first-child' };

test("timeline view: next twice and previous twice show the API's own pages; browser history; a filter resets to page 1", {
  timeout: 60_000,
}, async () => {
  const path = `/v13/runs/${runs.timeline}/timeline`;
  const cursors = (b: { rows: Array<{ cursor: string }> }) => b.rows.map((r) => r.cursor);
  const pages = await apiPages(api.get, `${path}?limit=100`, cursors);
  await page.goto(`${stack.serviceUrl}/#/timeline/${runs.timeline}?limit=100`);
  await settled(page);
  await forwardTwiceBackTwice(page, TIMELINE, pages);
  await browserHistory(page, TIMELINE, pages);

  await page.click('#timeline-next');
  await settled(page);
  assert.equal((await shown(page, TIMELINE)).number, 'page 2');
  const writes = await apiPages(api.get, `${path}?limit=100&access=write`, cursors);
  await page.selectOption('#timeline-access', 'write');
  await page.click('#timeline-apply');
  await settled(page);
  assert.deepEqual(await shown(page, TIMELINE), { number: 'page 1', keys: writes[0], previous: false });
  assert.equal(await page.textContent('#timeline-cursor'), '0:0');
});

test('checkpoint comparisons: the stored pair listed and opened', { timeout: 60_000 }, async () => {
  await page.goto(`${stack.serviceUrl}/`);
  await ready('runs');
  await page.click('header nav a[data-nav="checkpoints"]');
  await ready('checkpoints');
  const links = await texts('#checkpoints-table a.checkpoint-link');
  assert.deepEqual(links, [runs.checkpointComparison]);
  await shot('checkpoints');
  await page.click('#checkpoints-table a.checkpoint-link');
  await ready('checkpoint');
  assert.equal(await page.textContent('#checkpoint-result'), 'matched');
  await shot('checkpoint');
});

test('jobs view: a job started while it is open shows running, then finished, without a reload', { timeout: 90_000 }, async () => {
  await page.goto(`${stack.serviceUrl}/`);
  await ready('runs');
  await page.click('header nav a[data-nav="jobs"]');
  await ready('jobs');
  await page.evaluate(() => {
    (window as unknown as { sameDocument: boolean }).sameDocument = true;
  });
  // Two runs of a program that never reports: each lasts its whole 1.5 s budget.
  const r = await api.post('/v13/jobs', { test: 'hang-times-out', targets: ['vice'], repeat: 2 });
  assert.equal(r.status, 201);
  const id = r.body.job.job_id as string;
  await page.waitForSelector(`.job-state[data-job="${id}"]:text("running")`, { timeout: 60_000 });
  await shot('jobs-running');
  await page.waitForSelector(`.job-state[data-job="${id}"]:text("finished")`, { timeout: 60_000 });
  assert.equal(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument), true, 'no reload happened');
  const row = (await texts('#jobs-table tbody tr')).find((t) => t.includes('hang-times-out'));
  assert.match(row ?? '', /2\/2/);
  await shot('jobs-finished');
});

test('jobs view: Cancel on a queued job (it never runs) and on a running one (it stops, keeping its committed runs)', {
  timeout: 90_000,
}, async (t) => {
  if (!('cancelJob' in ROUTE_PATHS)) {
    t.skip("the service's route table has no cancelJob route in this branch (helper svc-runner adds POST /v13/jobs/{job_id}/cancel)");
    return;
  }
  await page.goto(`${stack.serviceUrl}/#/jobs`);
  await ready('jobs');
  // A job of three 1.5 s runs, and one queued behind it on the same target: the ultimate target,
  // whose one device is leased per job (vice jobs take no lease since issue 31.5: the pool runs
  // them side by side, so none would stay queued there).
  const onDevice = async (repeat: number) =>
    api.post('/v13/jobs', {
      test: 'hang-times-out',
      targets: ['ultimate'],
      repeat,
      probe_id: await api.probe(),
      confirmed_reset_count: repeat,
      confirmed_reu_write_count: 0,
    });
  const a = await onDevice(3);
  const b = await onDevice(1);
  assert.equal(a.status, 201, JSON.stringify(a.body));
  assert.equal(b.status, 201, JSON.stringify(b.body));
  const ida = a.body.job.job_id as string;
  const idb = b.body.job.job_id as string;
  await page.waitForSelector(`.job-state[data-job="${ida}"]:text("running")`, { timeout: 60_000 });
  await page.waitForSelector(`.job-state[data-job="${idb}"]:text("queued")`, { timeout: 10_000 });
  await page.click(`button.job-cancel[data-job="${idb}"]`);
  await page.waitForSelector(`.job-state[data-job="${idb}"]:text("cancelled")`, { timeout: 10_000 });
  await page.click(`button.job-cancel[data-job="${ida}"]`);
  await page.waitForSelector(`.job-state[data-job="${ida}"]:text("cancelled")`, { timeout: 30_000 });
  await shot('jobs-cancelled');
  const jb = (await api.get(`/v13/jobs/${idb}`)).body.job;
  assert.equal(jb.state, 'cancelled');
  assert.deepEqual(jb.run_ids, [], 'the queued job never ran');
  const ja = (await api.get(`/v13/jobs/${ida}`)).body.job;
  assert.equal(ja.state, 'cancelled');
  assert.ok(ja.run_ids.length < 3, `the running job stopped early (${ja.run_ids.length} of 3 runs)`);
  assert.equal(await page.$(`button.job-cancel[data-job="${ida}"]`), null, 'a settled job has no Cancel button');
});

test('native intents view: a service that holds no intent says so (the populated view: native-view.test.ts)', {
  timeout: 30_000,
}, async () => {
  await page.click('header nav a[data-nav="native"]');
  await ready('native');
  assert.equal(await page.$$eval('#native-intents tbody tr', (trs) => trs.length), 0);
  assert.match((await page.textContent('#native-empty')) ?? '', /No native intents yet/);
  await shot('native');
});

test('the dashboard used only its own files and the public /v13 API, and broke no CSP rule', () => {
  assert.ok(requested.length > 0);
  const other = requested.filter((p) => !(p === '/' || p.startsWith('/dashboard/') || p.startsWith('/v13/')));
  assert.deepEqual(other, []);
  assert.ok(requested.some((p) => p === '/v13/runs'));
  assert.deepEqual(consoleErrors, []);
});

test('suite view: three tests started from the dashboard on vice and the Ultimate (only once its reset count is ticked), followed to the end', {
  timeout: 150_000,
}, async () => {
  await page.goto(`${stack.serviceUrl}/#/suite`);
  await ready('suite');
  const keep = ['sum-passes', 'arithmetic-fails', 'hang-times-out'];
  const listed = await page.$$eval('input.suite-test', (els) => els.map((e) => (e as HTMLInputElement).value));
  const project = (await api.get('/v13/project')).body.project;
  assert.deepEqual(
    listed,
    project.tests.map((t: { name: string }) => t.name),
    "every test of the project, in the manifest's order",
  );
  for (const name of listed) if (!keep.includes(name)) await page.uncheck(`input.suite-test[value="${name}"]`);
  await page.check('input.suite-target[value="vice"]');
  assert.equal(await page.isDisabled('#suite-start'), false, 'vice alone needs no confirmation');
  await page.check('input.suite-target[value="ultimate"]');
  assert.equal(await page.isDisabled('#suite-start'), true, 'with the Ultimate the button waits for the confirmation');
  assert.match((await page.textContent('#suite-confirm-text')) ?? '', /^I confirm 3 resets of the Ultimate \(one per run\)\.$/);
  await page.check('#suite-confirm');
  assert.equal(await page.textContent('#suite-start'), 'Run 3 tests on vice and ultimate');
  await page.click('#suite-start');
  await page.waitForFunction(() => /^#\/suite\/[0-9a-f-]{36}$/.test(location.hash), undefined, { timeout: 30_000 });
  const jobId = (await page.evaluate(() => location.hash)).split('/')[2]!;
  await page.waitForSelector('#suite-state:text("finished")', { timeout: 120_000 });
  const job = (await api.get(`/v13/jobs/${jobId}`)).body.job;
  assert.equal(job.test, '*suite*');
  assert.deepEqual(job.tests, keep);
  assert.deepEqual(job.targets, ['vice', 'ultimate']);
  assert.equal(job.run_ids.length, 6);
  // The page shows every run with the status the API holds, and the job's counts.
  const shownRows = await cellsOf('#suite-table');
  assert.equal(shownRows.length, 6);
  for (const id of job.run_ids) {
    const run = (await api.get(`/v13/runs/${id}`)).body.run;
    const row = shownRows.find((r) => r[4] === id.slice(0, 8));
    assert.ok(row, `a row for run ${id}`);
    assert.deepEqual(row.slice(0, 4), [run.test, run.target, run.status, run.status_reason]);
  }
  assert.equal(await page.textContent('#suite-progress'), '6/6 runs');
  const counts = Object.entries(job.progress.statuses as Record<string, number>).map(([s, n]) => `${n} ${s}`);
  assert.equal(await page.textContent('#suite-counts'), counts.join(' · '));
  assert.equal(await page.$('#suite-cancel'), null, 'a settled job has no Cancel button');
  await shot('suite-finished');
});
