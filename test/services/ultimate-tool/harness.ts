// Shared set-up for the service tests: a copy of the example project, a virtual Ultimate 64 whose
// resets, REU writes and FTP writes are counted, `ultimate-tool virtual-vice` as the vice target,
// and the service in-process on an ephemeral loopback port, spoken to over real HTTP.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binCommand, repoRoot } from '../../helpers/bin.js';
import { UltimateToolService, type UltimateToolServiceOptions } from '../../../services/ultimate-tool/index.js';
import { VirtualUltimate } from '../../../engines/ultimate/virtual/index.js';

export const exampleProject = join(repoRoot, 'examples', 'c64-project');

export function virtualViceCommand(): string[] {
  const { command, args } = binCommand('ultimate-tool', ['virtual-vice']);
  return [command, ...args];
}

export interface DeviceCounts {
  resets: number;
  reuWrites: number;
  ftpWrites: number;
}

/** Starts a virtual Ultimate 64 and counts what reaches it. */
export async function countedDevice(): Promise<{ dev: VirtualUltimate; counts: DeviceCounts }> {
  const dev = await VirtualUltimate.start({});
  const counts: DeviceCounts = { resets: 0, reuWrites: 0, ftpWrites: 0 };
  const m = dev.machine as unknown as { reset: () => void };
  const reset = m.reset.bind(m);
  m.reset = () => {
    counts.resets++;
    reset();
  };
  const writeReu = dev.writeReu.bind(dev);
  dev.writeReu = (o: number, b: Uint8Array) => {
    counts.reuWrites++;
    writeReu(o, b);
  };
  const write = dev.fs.write.bind(dev.fs);
  dev.fs.write = (p: string, d: Uint8Array) => {
    counts.ftpWrites++;
    write(p, d);
  };
  return { dev, counts };
}

export interface Harness {
  svc: UltimateToolService;
  dev: VirtualUltimate;
  counts: DeviceCounts;
  project: string;
  store: string;
  clock: { offsetMs: number };
  get(path: string): Promise<{ status: number; body: any }>;
  post(path: string, body: unknown): Promise<{ status: number; body: any }>;
  waitJob(jobId: string, timeoutMs?: number): Promise<any>;
  probe(strict?: boolean): Promise<string>;
  close(): Promise<void>;
}

export async function startHarness(
  opts: { project?: string; mutateProject?: (dir: string) => void; service?: Partial<UltimateToolServiceOptions> } = {},
): Promise<Harness> {
  const work = mkdtempSync(join(tmpdir(), 'ultimate-svc-test-'));
  const project = join(work, 'project');
  cpSync(opts.project ?? exampleProject, project, {
    recursive: true,
    filter: (s) => !s.includes(`${'/'}build`) && !s.endsWith('.ultimate-tool'),
  });
  opts.mutateProject?.(project);
  const store = join(work, 'store');
  const { dev, counts } = await countedDevice();
  const clock = { offsetMs: 0 };
  const svc = await UltimateToolService.start({
    projectDir: project,
    storeDir: store,
    port: 0,
    vice: { command: virtualViceCommand() },
    ultimate: {
      device: { baseUrl: `http://127.0.0.1:${dev.ports.http}`, ftpPort: dev.ports.ftp, dmaPort: dev.ports.dma },
      virtualDevice: true,
    },
    now: () => Date.now() + clock.offsetMs,
    ...opts.service,
  });
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${svc.url}${path}`, {
      method,
      // Every POST carries JSON's media type: the service refuses others (cross-site form posts).
      headers: method === 'POST' ? { 'content-type': 'application/json' } : {},
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: r.status, body: await r.json() };
  };
  const h: Harness = {
    svc,
    dev,
    counts,
    project,
    store,
    clock,
    get: (p) => call('GET', p),
    post: (p, b) => call('POST', p, b),
    async waitJob(jobId, timeoutMs = 120_000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const { body } = await call('GET', `/v13/jobs/${jobId}`);
        if (['finished', 'failed', 'cancelled'].includes(body.job?.state)) return body.job;
        if (Date.now() > end) throw new Error(`job ${jobId} still ${body.job?.state} after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async probe(strict = false) {
      const r = await call('POST', '/v13/probes', { strict_gate: strict });
      if (r.status !== 201) throw new Error(`probe failed: ${JSON.stringify(r.body)}`);
      return r.body.probe.probe_id as string;
    },
    async close() {
      await svc.stop();
      await dev.stop();
      rmSync(work, { recursive: true, force: true });
    },
  };
  return h;
}
