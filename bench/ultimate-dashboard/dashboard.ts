// The dashboard in headless Chromium (Debian's chromium, playwright-core) against a service whose
// store holds 10,000 runs (seeded through ServiceStore.insertRuns, see seed-store.ts) and one run
// with a 3-second and one with a 30-second debug-stream capture. Peers in the same run, interleaved:
//   runs view first page (navigation → rendered)  vs  the same page as JSON (GET /v13/runs?limit=50)
//                                                  and through the MCP adapter (list_runs, limit 50)
//   timeline page (click "next page" → rendered)  vs  the same page as JSON (GET …/timeline)
// and, per timeline page, the bytes the browser received (every response while the page loaded)
// beside the size of the capture it pages.
//
//   npm run build && node --import tsx bench/ultimate-dashboard/dashboard.ts [iterations]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Page } from 'playwright-core';
import { UltimateToolService } from '../../services/ultimate-tool/index.js';
import { launchChromium } from '../../test/services/ultimate-tool/dashboard/browser.js';
import { CAPTURE_DATAGRAMS, type CaptureRun, seedCaptureRun, seedRuns } from './seed-store.js';

const iterations = Number(process.argv[2] ?? 20);
const RUNS = 10_000;
const root = join(import.meta.dirname, '..', '..');

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
const fmt = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(1)} ms, p95 ${pct(xs, 95).toFixed(1)} ms`;

/** Bytes of every response body the page received while `action` ran (transfer, not decoded DOM). */
async function bytesDuring(page: Page, action: () => Promise<void>): Promise<{ bytes: number; requests: string[] }> {
  const sizes: Array<Promise<number>> = [];
  const requests: string[] = [];
  const onResponse = (r: import('playwright-core').Response) => {
    requests.push(new URL(r.url()).pathname);
    sizes.push(
      r.body().then(
        (b) => b.length,
        () => 0,
      ),
    );
  };
  page.on('response', onResponse);
  await action();
  page.off('response', onResponse);
  return { bytes: (await Promise.all(sizes)).reduce((a, b) => a + b, 0), requests };
}

const dir = mkdtempSync(join(tmpdir(), 'dashboard-bench-'));
const storeDir = join(dir, 'store');
const seedMs = seedRuns(storeDir, RUNS);
// A 3-second capture beside the 30-second one: per-page time and bytes must not grow with size.
const small = await seedCaptureRun(storeDir, Math.round(CAPTURE_DATAGRAMS / 10));
const capture = await seedCaptureRun(storeDir);
const svc = await UltimateToolService.start({
  projectDir: join(root, 'examples', 'c64-project'),
  storeDir,
  port: 0,
  vice: null,
  ultimate: null,
});
const browser = await launchChromium();
const mcp = new Client({ name: 'dashboard-bench', version: '1' });
await mcp.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [join(root, 'dist', 'bin', 'ultimate-tool-mcp.js'), '--service-url', svc.url],
  }),
);
try {
  console.log(
    `store: ${RUNS} runs seeded in ${seedMs.toFixed(0)} ms + capture runs of 3 s and 30 s (the latter ${CAPTURE_DATAGRAMS} datagrams = 30 s, capture ${(capture.captureBytes / 1e6).toFixed(1)} MB, index ${(capture.indexBytes / 1e6).toFixed(2)} MB)`,
  );
  console.log(`${iterations} iterations, each in a fresh browser context (no cache), interleaved with the peers`);

  // ---- runs view: first page ----
  const navToRendered: number[] = [];
  const jsonNav: number[] = [];
  const wall: number[] = [];
  const json: number[] = [];
  const viaMcp: number[] = [];
  let firstPageBytes = 0;
  for (let i = 0; i < iterations; i++) {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    const t = performance.now();
    const { bytes } = await bytesDuring(page, async () => {
      await page.goto(`${svc.url}/#/runs`);
      await page.waitForSelector('main[data-view="runs"][data-state="ready"] #runs-table tbody tr');
    });
    wall.push(performance.now() - t);
    firstPageBytes = bytes;
    const rows = await page.$$eval('#runs-table tbody tr', (r) => r.length);
    if (rows !== 50) throw new Error(`runs view showed ${rows} rows`);
    navToRendered.push(Number(await page.evaluate(() => document.body.dataset.firstReadyMs)));
    // Browser floor: the same fresh context navigating to the JSON itself (load event).
    await page.goto(`${svc.url}/v13/runs?limit=50`);
    jsonNav.push(await page.evaluate(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventEnd));
    await ctx.close();

    let s = performance.now();
    const r = await fetch(`${svc.url}/v13/runs?limit=50`);
    const body = (await r.json()) as { runs: unknown[] };
    if (body.runs.length !== 50) throw new Error('json peer');
    json.push(performance.now() - s);

    s = performance.now();
    const res = await mcp.callTool({ name: 'list_runs', arguments: { limit: 50 } });
    if (res.isError) throw new Error(`list_runs: ${JSON.stringify(res.content)}`);
    viaMcp.push(performance.now() - s);
  }
  console.log(`\nruns view, first page of 50 among ${RUNS + 1} runs:`);
  console.log(`  dashboard, navigation start → first page rendered (in-page performance.now): ${fmt(navToRendered)}`);
  console.log(`  dashboard, goto() → rows present (as the test driver sees it):            ${fmt(wall)}`);
  console.log(`  peer: GET /v13/runs?limit=50 as JSON (fetch + parse):                     ${fmt(json)}`);
  console.log(`  peer: the browser navigating to that JSON URL (load event):               ${fmt(jsonNav)}`);
  console.log(`  peer: MCP list_runs(limit 50) through ultimate-tool-mcp:                  ${fmt(viaMcp)}`);
  console.log(
    `  ratio dashboard/JSON ${(pct(navToRendered, 50) / pct(json, 50)).toFixed(1)}×, dashboard/MCP ${(pct(navToRendered, 50) / pct(viaMcp, 50)).toFixed(1)}×, dashboard/browser-on-JSON ${(pct(navToRendered, 50) / pct(jsonNav, 50)).toFixed(1)}×; bytes received for the whole view: ${(firstPageBytes / 1024).toFixed(1)} KiB`,
  );

  // ---- timeline view: paging a 3-second and a 30-second capture ----
  const timeline = async (label: string, cap: CaptureRun) => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    const open = await bytesDuring(page, async () => {
      await page.goto(`${svc.url}/#/timeline/${cap.runId}`);
      await page.waitForSelector('main[data-view="timeline"][data-state="ready"] #timeline-rows tbody tr');
    });
    const pageMs: number[] = [];
    const pageJson: number[] = [];
    const pageBytes: number[] = [];
    const inPage: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const before = (await page.textContent('#timeline-cursor')) ?? '';
      const t = performance.now();
      const { bytes, requests } = await bytesDuring(page, async () => {
        // Clicked inside the page so the in-page clock starts at the click itself.
        await page.evaluate(() => {
          (window as unknown as { clickedAt: number }).clickedAt = performance.now();
          (document.querySelector('#timeline-next') as HTMLAnchorElement).click();
        });
        await page.waitForFunction(
          (b) => document.querySelector('#timeline-cursor')?.textContent !== b && document.querySelector('main')?.dataset.state === 'ready',
          before,
        );
      });
      pageMs.push(performance.now() - t);
      inPage.push(
        await page.evaluate(
          () => Number(document.querySelector('main')?.dataset.readyAtMs) - (window as unknown as { clickedAt: number }).clickedAt,
        ),
      );
      pageBytes.push(bytes);
      if (requests.length !== 1) throw new Error(`a page made ${requests.length} requests: ${requests.join(', ')}`);
      const cursor = (await page.textContent('#timeline-cursor')) ?? '';
      const s = performance.now();
      const r = await fetch(`${svc.url}/v13/runs/${cap.runId}/timeline?cursor=${cursor}`);
      if ((((await r.json()) as { rows: unknown[] }).rows ?? []).length !== 256) throw new Error('timeline json peer');
      pageJson.push(performance.now() - s);
    }
    // A page in the middle and the last page, opened directly (seek by cursor).
    const seek: Array<[string, number]> = [];
    for (const cursor of [`${cap.datagrams >> 1}:0`, `${cap.datagrams - 1}:100`]) {
      const t = performance.now();
      await page.goto(`${svc.url}/#/timeline/${cap.runId}?cursor=${cursor}`);
      await page.waitForFunction(
        (c) => document.querySelector('#timeline-cursor')?.textContent === c && document.querySelector('main')?.dataset.state === 'ready',
        cursor,
      );
      seek.push([cursor, performance.now() - t]);
    }
    await ctx.close();
    const avgBytes = pageBytes.reduce((a, b) => a + b, 0) / pageBytes.length;
    console.log(
      `\ntimeline view of the ${label} capture (${(cap.captureBytes / 1e6).toFixed(1)} MB, ${cap.datagrams} datagrams), 256 rows a page:`,
    );
    console.log(`  open (page + assets + first timeline page): ${(open.bytes / 1024).toFixed(1)} KiB received`);
    console.log(
      `  next page, click → rendered, in-page clock: ${fmt(inPage)}; as the driver sees it: ${fmt(pageMs)}; one request each, ${(avgBytes / 1024).toFixed(1)} KiB received per page`,
    );
    console.log(
      `  peer: the same page as JSON (GET …/timeline): ${fmt(pageJson)}; ratio (in-page) ${(pct(inPage, 50) / pct(pageJson, 50)).toFixed(1)}×`,
    );
    console.log(
      `  bytes per page / capture size: ${((avgBytes / cap.captureBytes) * 100).toFixed(3)} % (${Math.round(cap.captureBytes / avgBytes)}× smaller)`,
    );
    for (const [c, ms] of seek) console.log(`  opened at cursor ${c}: ${ms.toFixed(1)} ms`);
  };
  await timeline('3-second', small);
  await timeline('30-second', capture);
} finally {
  await mcp.close();
  await browser.close();
  await svc.stop();
  rmSync(dir, { recursive: true, force: true });
}
