// What the dashboard shows a C64 developer (issue 35, part 6), in headless Chromium against an
// in-process service: a checkpoint point's `matched: false` (not "—"), a difference's addresses
// as $C120 (not 49440), byte strings as $-bytes, and a job's run links apart, not glued together.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { RUN_RECORD_SCHEMA_VERSION, type RunRecord, UltimateToolService } from '../../../../services/ultimate-tool/index.js';
import { CHECKPOINT_COMPARISON_SCHEMA_VERSION } from '../../../../services/ultimate-tool/analysis/checkpoint-comparison.js';
import { repoRoot } from '../../../helpers/bin.js';
import { launchChromium } from './browser.js';

let svc: UltimateToolService;
let dir: string;
let browser: Browser;
let page: Page;

function run(id: string, jobId: string): RunRecord {
  const at = new Date().toISOString();
  return {
    run_record_schema_version: RUN_RECORD_SCHEMA_VERSION,
    run_id: id,
    job_id: jobId,
    test: 'sum-verdict-00',
    target: 'vice',
    target_identity: {},
    emulation: true,
    candidate: { artifact_sha256: null, artifact_name: 'sum', build: {} },
    started_at: at,
    finished_at: at,
    timings: {},
    expectations: { observe: 'debug_register', memory: [{ address: 0x08f3, bytes: '1100' }] },
    observations: {
      observe: 'debug_register',
      memory: [{ address: 0x08f3, address_hex: '$08F3', expected: '1100', actual: '0000', matched: false }],
    },
    status: 'failed',
    status_reason: 'memory at $08F3 is 0000, expected 1100',
    screen_match: null,
    supporting_artifacts: [],
    evidence: [],
    crash_state: null,
    comparison: null,
  } as unknown as RunRecord;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dashboard-hex-'));
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

test('a checkpoint point shows matched: false and its differences in hex', { timeout: 60_000 }, async () => {
  const id = randomUUID();
  const baseline = randomUUID();
  const candidate = randomUUID();
  const summary = {
    checkpoint_comparison_record_schema_version: 1 as const,
    comparison_id: id,
    job_id: 'job-x',
    test: 'checkpoints',
    created_at: new Date().toISOString(),
    baseline: { run_id: baseline, target: 'vice' as const },
    candidate: { run_id: candidate, target: 'ultimate' as const },
    result: 'diverged' as const,
    first_divergence: 'after-copy',
  };
  svc.store.checkpointPairs.insert({
    ...summary,
    comparison: {
      checkpoint_comparison_schema_version: CHECKPOINT_COMPARISON_SCHEMA_VERSION,
      result: 'diverged',
      points_compared: 1,
      points_diverged: 1,
      points: [
        {
          name: 'after-copy',
          marker: 1,
          matched: false,
          ranges: [
            {
              name: 'buffer',
              address_hex: '$C100',
              length: 64,
              matched: false,
              differing_bytes: 1,
              differences: [{ from: 0xc120, to: 0xc120, from_hex: '$C120', to_hex: '$C120', baseline_hex: 'a9', candidate_hex: '00' }],
            },
          ],
        },
      ],
    },
  } as never);
  await page.goto(`${svc.url}/#/checkpoint/${id}`);
  await ready('checkpoint');
  const points = (await page.textContent('#checkpoint-points')) ?? '';
  assert.match(points, /matched: false/);
  assert.match(points, /\$C120/);
  assert.doesNotMatch(points, /49440/);
  assert.match(points, /\$A9/);
});

test('memory bytes are shown with $; a job’s run links are apart', { timeout: 60_000 }, async () => {
  const jobId = randomUUID();
  const ids = [randomUUID(), randomUUID()];
  for (const id of ids) svc.store.insertRun(run(id, jobId));
  svc.store.putJob({
    job_id: jobId,
    state: 'finished',
    test: 'sum-verdict-00',
    targets: ['vice'],
    repeat: 2,
    strict_gate: false,
    baseline_run_id: null,
    created_at: new Date().toISOString(),
    started_at: null,
    finished_at: null,
    progress: { completed_runs: 2, total_runs: 2, phase: 'finished' },
    run_ids: ids,
    error: null,
  } as never);
  await page.goto(`${svc.url}/#/jobs`);
  await ready('jobs');
  const text = await page.$$eval('a.job-run', (as) => (as[0]?.parentElement?.textContent ?? '') as string);
  assert.equal(text, `${ids[0]!.slice(0, 8)}, ${ids[1]!.slice(0, 8)}`);
  await page.goto(`${svc.url}/#/run/${ids[0]}`);
  await ready('run');
  const obs = (await page.textContent('main')) ?? '';
  assert.match(obs, /\$11 \$00/);
  assert.match(obs, /\$00 \$00/);
});
