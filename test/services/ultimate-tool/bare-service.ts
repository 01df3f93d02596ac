// A service without targets (no vice, no ultimate) over a copy of the example project, for the
// store and HTTP reliability tests that need the service but no machine. Also a minimal committed
// run with one text evidence file, written the way a job writes it.
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256Hex } from '../../../common/index.js';
import type { RunRecord } from '../../../services/ultimate-tool/api/schemas.js';
import { UltimateToolService, type UltimateToolServiceOptions } from '../../../services/ultimate-tool/index.js';
import type { ServiceStore } from '../../../services/ultimate-tool/store/store.js';
import { exampleProject } from './harness.js';

export function bareProject(): { work: string; project: string; store: string } {
  const work = mkdtempSync(join(tmpdir(), 'ultimate-bare-'));
  const project = join(work, 'project');
  cpSync(exampleProject, project, { recursive: true, filter: (s) => !s.includes('/build') && !s.endsWith('.ultimate-tool') });
  return { work, project, store: join(work, 'store') };
}

export function startBare(project: string, store: string, opts: Partial<UltimateToolServiceOptions> = {}): Promise<UltimateToolService> {
  return UltimateToolService.start({ projectDir: project, storeDir: store, port: 0, vice: null, ultimate: null, ...opts });
}

/** Commits a run with the given text evidence files (bytes written first, as a job does). */
export function commitRun(store: ServiceStore, runId: string, files: Record<string, string>): void {
  const dir = store.runDir(runId);
  mkdirSync(dir, { recursive: true });
  const evidence = Object.entries(files).map(([name, text]) => {
    writeFileSync(join(dir, name), text);
    return { name, media_type: 'text/plain', size: Buffer.byteLength(text), sha256: sha256Hex(Buffer.from(text)) };
  });
  const record = {
    run_id: runId,
    job_id: 'job-1',
    test: 'passes',
    target: 'vice',
    status: 'passed',
    emulation: true,
    candidate: { artifact_sha256: '0'.repeat(64) },
    started_at: '2026-12-01T00:00:00.000Z',
    finished_at: '2026-12-01T00:00:01.000Z',
    evidence,
  } as unknown as RunRecord;
  store.insertRun(record);
}

export async function getJson(base: string, path: string): Promise<{ status: number; body: any }> {
  const r = await fetch(base + path);
  return { status: r.status, body: await r.json() };
}
