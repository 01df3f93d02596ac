// Set-up for the trusted-native flow tests: a copy of the example project (with its native
// program utr2-echo), a virtual Ultimate 64 Elite II whose FTP STORs and Run Update requests are
// counted by the device itself (step-watch.ts), and the service in-process on a loopback port,
// with the device's lab bench as --bench-url, spoken to over real HTTP. A movable clock for
// expiry tests.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UltimateToolService, type UltimateToolServiceOptions } from '../../../../../services/ultimate-tool/index.js';
import { type VirtualProduct, VirtualUltimate, stepsFor } from '../../../../../engines/ultimate/virtual/index.js';
import { repoRoot } from '../../../../helpers/bin.js';

export const exampleProject = join(repoRoot, 'examples', 'c64-project');

export function copyProject(work: string): string {
  const project = join(work, 'project');
  cpSync(exampleProject, project, { recursive: true, filter: (s) => !s.includes('/build') && !s.endsWith('.ultimate-tool') });
  return project;
}

export type Json = Record<string, any>;

export async function http(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(base + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** Polls until `fn` returns a value (not undefined) — a wait for a condition, bounded by `timeoutMs`. */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface NativeHarness {
  svc: UltimateToolService;
  dev: VirtualUltimate;
  store: string;
  clock: { offsetMs: number };
  host: string;
  counts(): { 'ftp-stor': number; 'run-update': number };
  get(path: string): Promise<{ status: number; body: Json }>;
  post(path: string, body?: unknown): Promise<{ status: number; body: Json }>;
  probe(): Promise<string>;
  prepare(): Promise<Json>;
  intent(extra: Json): Promise<{ status: number; body: Json }>;
  waitRun(runId: string): Promise<Json>;
  waitJob(jobId: string): Promise<Json>;
  powerCycle(): Promise<void>;
  close(): Promise<void>;
}

export async function startNativeHarness(
  opts: {
    product?: VirtualProduct;
    runUpdateAnswer?: 'reply' | 'none';
    service?: Partial<UltimateToolServiceOptions>;
    mutateProject?: (dir: string, work: string) => void | Promise<void>;
  } = {},
): Promise<NativeHarness> {
  const work = mkdtempSync(join(tmpdir(), 'native-flow-test-'));
  const project = copyProject(work);
  await opts.mutateProject?.(project, work);
  const store = join(work, 'store');
  const product = opts.product ?? 'u64-elite2';
  const dev = await VirtualUltimate.start({
    product,
    ...(product === 'u64-elite2' ? { benchPort: 0, native: { runUpdateAnswer: opts.runUpdateAnswer ?? 'reply', maxMs: 10_000 } } : {}),
  });
  const clock = { offsetMs: 0 };
  // A service that refuses to start (an invalid manifest) must not leave the device running.
  const svc = await UltimateToolService.start({
    projectDir: project,
    storeDir: store,
    port: 0,
    vice: null,
    ultimate: {
      device: { baseUrl: `http://127.0.0.1:${dev.ports.http}`, ftpPort: dev.ports.ftp, dmaPort: dev.ports.dma, timeoutMs: 5000 },
      virtualDevice: true,
    },
    benchUrl: dev.ports.bench ? `http://127.0.0.1:${dev.ports.bench}` : null,
    now: () => Date.now() + clock.offsetMs,
    nativeOutputTimeoutMs: 10_000,
    ...opts.service,
  }).catch(async (e: unknown) => {
    await dev.stop();
    throw e;
  });
  const base = svc.url;
  const get = (p: string) => http(base, 'GET', p);
  const post = (p: string, b: unknown = {}) => http(base, 'POST', p, b);
  let prepared: Json | undefined;
  const h: NativeHarness = {
    svc,
    dev,
    store,
    clock,
    host: '127.0.0.1',
    counts: () => {
      const c = stepsFor(dev).counts;
      return { 'ftp-stor': c['ftp-stor'], 'run-update': c['run-update'] };
    },
    get,
    post,
    probe: async () => {
      const r = await post('/v13/probes', {});
      if (r.status !== 201) throw new Error(`probe failed: ${JSON.stringify(r.body)}`);
      return r.body.probe.probe_id as string;
    },
    prepare: async () => {
      if (prepared) return prepared;
      const r = await post('/v13/native/preparations', { program: 'utr2-echo' });
      if (r.status !== 201) throw new Error(`preparation failed: ${JSON.stringify(r.body)}`);
      prepared = r.body.preparation as Json;
      return prepared;
    },
    intent: async (extra) => {
      const prep = await h.prepare();
      const probe_id = extra.probe_id ?? (await h.probe());
      return post('/v13/native/intents', { preparation_id: prep.preparation_id, mode: 'one-shot', ...extra, probe_id });
    },
    waitRun: (runId) =>
      waitFor(`native run ${runId} to finish`, async () => {
        const r = await get(`/v13/native/runs/${runId}`);
        return ['latched', 'uploaded', 'triggered'].includes(r.body.native_run.state) ? undefined : (r.body.native_run as Json);
      }),
    waitJob: (jobId) =>
      waitFor(`job ${jobId} to end`, async () => {
        const r = await get(`/v13/jobs/${jobId}`);
        return ['queued', 'running'].includes(r.body.job.state) ? undefined : (r.body.job as Json);
      }),
    powerCycle: async () => {
      const res = await fetch(`http://127.0.0.1:${dev.ports.bench}/bench/power-cycle`, { method: 'POST' });
      if (!res.ok) throw new Error(`power cycle: ${res.status}`);
      await res.arrayBuffer();
    },
    close: async () => {
      stepsFor(dev).releaseAll();
      await svc.stop();
      await dev.stop();
      rmSync(work, { recursive: true, force: true });
    },
  };
  return h;
}
