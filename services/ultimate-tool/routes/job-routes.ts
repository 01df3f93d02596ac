// The jobs family: list, read, start (test jobs; the other kinds start in their own families) and
// cancel jobs. Every job runs in the one JobRunner; a test job is validated whole here — test,
// targets, baseline, probe and counts — before the runner's queue bound and anything is consumed.
import { randomUUID } from 'node:crypto';
import { EmptyBodySchema } from '../api/native-schemas.js';
import { ROUTES } from '../api/routes.js';
import { JobRequestSchema, JobsQuerySchema, SuiteJobRequestSchema } from '../api/schemas.js';
import { rejectCheckpointMatrix } from '../jobs/checkpoint-job.js';
import { SUITE_TEST_LABEL } from '../jobs/test-job.js';
import { checkProbe } from '../safety/probes.js';
import type { Reply, RouteHandlers } from '../http/route-binding.js';
import { ServiceError } from '../http/service-error.js';
import { type RouteContext, ok, parse, queryObject } from './route-context.js';

export type JobRouteName = 'listJobs' | 'getActiveJob' | 'getJob' | 'cancelJob' | 'startTestJob' | 'startSuiteJob';

function checkedJobId(id: string): string {
  if (id.length > 100) throw new ServiceError('invalid-request', 'job id longer than 100 characters', 400);
  return id;
}

export function jobRoutes(ctx: RouteContext): RouteHandlers<JobRouteName> {
  return {
    // Newest first; a job still held by the runner is shown with its live progress.
    listJobs: (_m, url) => {
      const q = parse(JobsQuerySchema, queryObject(url), `query for GET ${ROUTES.listJobs.path}`);
      const jobs = ctx.store.listJobs(q.limit, q.state).map((j) => ctx.jobs.liveJob(j.job_id) ?? j);
      return ok({ jobs });
    },
    // The running job that started first, of any kind.
    getActiveJob: () => ok({ job: ctx.jobs.activeJob() }),
    getJob: (m) => {
      const id = checkedJobId(m[1]!);
      const job = ctx.jobs.liveJob(id) ?? ctx.store.getJob(id);
      if (!job) throw new ServiceError('not-found', `no job ${JSON.stringify(id)}`, 404);
      return ok({ job });
    },
    // A queued job is cancelled outright, a running one at its next safe step; an ended one is refused.
    cancelJob: (m, _u, body) => {
      const id = checkedJobId(m[1]!);
      parse(EmptyBodySchema, body, `body for POST ${ROUTES.cancelJob.path} (expected {})`);
      const live = ctx.jobs.cancel(id);
      if (live) return ok({ job: live });
      const stored = ctx.store.getJob(id);
      if (!stored) throw new ServiceError('not-found', `no job ${JSON.stringify(id)}`, 404);
      throw new ServiceError('job_settled', `job ${id} already ended (${stored.state}); there is nothing to cancel`, 409, {
        state: stored.state,
      });
    },
    startTestJob: (_m, _u, body) => startTestJob(ctx, body),
    startSuiteJob: (_m, _u, body) => startSuiteJob(ctx, body),
  };
}

async function startTestJob(ctx: RouteContext, body: unknown): Promise<Reply> {
  const req = parse(JobRequestSchema, body, `body for POST ${ROUTES.startTestJob.path}`);
  const manifest = await ctx.manifest();
  const test = manifest.tests.find((t) => t.name === req.test);
  if (!test)
    throw new ServiceError(
      'invalid-request',
      `no test ${JSON.stringify(req.test)} in the project; tests: ${manifest.tests.map((t) => t.name).join(', ')}`,
      400,
    );
  rejectCheckpointMatrix(req, test);
  if (req.baseline_run_id && !ctx.store.getRun(req.baseline_run_id))
    throw new ServiceError('not-found', `baseline run ${req.baseline_run_id} is not stored`, 404);
  const wantsUltimate = req.targets.includes('ultimate');
  if (
    !wantsUltimate &&
    (req.probe_id !== undefined || req.confirmed_reset_count !== undefined || req.confirmed_reu_write_count !== undefined)
  )
    throw new ServiceError('invalid-request', 'probe_id and confirmed counts apply only to a job with the ultimate target', 400);
  for (const t of req.targets) {
    const info = ctx.targetInfo(t);
    if (!info.available) throw new ServiceError('target_unavailable', `target ${t} is unavailable: ${info.reason}`, 503);
  }
  const jobId = randomUUID();
  let probe = null;
  if (wantsUltimate) {
    const now = ctx.now();
    probe = checkProbe(ctx.store, req.probe_id, req.strict_gate, now);
    if (req.confirmed_reset_count !== req.repeat)
      throw new ServiceError(
        'confirmed_count_mismatch',
        `confirmed_reset_count must equal repeat (${req.repeat}): this job resets the device ${req.repeat} time(s); got ${req.confirmed_reset_count ?? 'nothing'}`,
        422,
        { expected_reset_count: req.repeat },
      );
    const reu = manifest.ultimate_reu_image ? req.repeat : 0;
    if ((req.confirmed_reu_write_count ?? 0) !== reu || (reu > 0 && req.confirmed_reu_write_count === undefined))
      throw new ServiceError(
        'confirmed_count_mismatch',
        manifest.ultimate_reu_image
          ? `confirmed_reu_write_count must equal repeat (${reu}): the project declares the REU image ${manifest.ultimate_reu_image}, written once per run`
          : `confirmed_reu_write_count must be 0: the project declares no REU image; got ${req.confirmed_reu_write_count}`,
        422,
        { expected_reu_write_count: reu },
      );
  }
  const consume = probe
    ? () => {
        if (!ctx.store.consumeProbe(probe.probe_id, jobId, ctx.now()))
          throw new ServiceError('probe_consumed', `probe ${probe.probe_id} was just used by another job`, 422);
      }
    : undefined;
  return ok({ job: await ctx.testJobs.submit(req, test, probe, jobId, consume) }, 201);
}

/**
 * A whole suite as one job: one build, then every test (`repeat` times) on each target — side by
 * side over the vice pool, one after the other on the device. With the ultimate target every run
 * resets the device: confirmed_reset_count must be tests × repeat.
 */
async function startSuiteJob(ctx: RouteContext, body: unknown): Promise<Reply> {
  const req = parse(SuiteJobRequestSchema, body, `body for POST ${ROUTES.startSuiteJob.path}`);
  const manifest = await ctx.manifest();
  const byName = new Map(manifest.tests.map((t) => [t.name, t]));
  const unknown = (req.tests ?? []).filter((n) => !byName.has(n));
  if (unknown.length)
    throw new ServiceError('invalid-request', `no test ${unknown.map((n) => JSON.stringify(n)).join(', ')} in the project`, 400, {
      unknown,
    });
  const tests = req.tests ? req.tests.map((n) => byName.get(n)!) : manifest.tests;
  const wantsUltimate = req.targets.includes('ultimate');
  if (
    !wantsUltimate &&
    (req.probe_id !== undefined || req.confirmed_reset_count !== undefined || req.confirmed_reu_write_count !== undefined)
  )
    throw new ServiceError('invalid-request', 'probe_id and confirmed counts apply only to a job with the ultimate target', 400);
  for (const t of req.targets) {
    const info = ctx.targetInfo(t);
    if (!info.available) throw new ServiceError('target_unavailable', `target ${t} is unavailable: ${info.reason}`, 503);
  }
  const jobId = randomUUID();
  let probe = null;
  const runs = tests.length * req.repeat;
  if (wantsUltimate) {
    probe = checkProbe(ctx.store, req.probe_id, req.strict_gate, ctx.now());
    if (req.confirmed_reset_count !== runs)
      throw new ServiceError(
        'confirmed_count_mismatch',
        `confirmed_reset_count must equal tests × repeat (${tests.length} × ${req.repeat} = ${runs}): this job resets the device ${runs} time(s); got ${req.confirmed_reset_count ?? 'nothing'}`,
        422,
        { expected_reset_count: runs },
      );
    const reu = manifest.ultimate_reu_image ? runs : 0;
    if ((req.confirmed_reu_write_count ?? 0) !== reu || (reu > 0 && req.confirmed_reu_write_count === undefined))
      throw new ServiceError(
        'confirmed_count_mismatch',
        manifest.ultimate_reu_image
          ? `confirmed_reu_write_count must equal tests × repeat (${reu}): the project declares the REU image ${manifest.ultimate_reu_image}, written once per run`
          : `confirmed_reu_write_count must be 0: the project declares no REU image; got ${req.confirmed_reu_write_count}`,
        422,
        { expected_reu_write_count: reu },
      );
  }
  const consume = probe
    ? () => {
        if (!ctx.store.consumeProbe(probe.probe_id, jobId, ctx.now()))
          throw new ServiceError('probe_consumed', `probe ${probe.probe_id} was just used by another job`, 422);
      }
    : undefined;
  const jobReq = { ...req, test: SUITE_TEST_LABEL, compare_checkpoints: false, baseline_run_id: undefined };
  return ok({ job: await ctx.testJobs.submit(jobReq, tests, probe, jobId, consume) }, 201);
}
