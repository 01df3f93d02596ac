// The runs family: list and read immutable run records, their evidence, address resolution and
// run comparison with the run's own label/map files, and the checkpoint comparisons.
import { readEvidenceFile } from '../runs/evidence-file.js';
import { join } from 'node:path';
import { addressValue } from '../api/address.js';
import { EvidenceIntegrityError } from '../analysis/registered-evidence.js';
import { ROUTES } from '../api/routes.js';
import {
  CheckpointCompareQuerySchema,
  CheckpointComparisonsQuerySchema,
  CompareQuerySchema,
  ResolveQuerySchema,
  RunsQuerySchema,
} from '../api/schemas.js';
import { compareStoredRuns, listPairs, storedPair } from '../jobs/checkpoint-job.js';
import { readEvidence } from '../runs/evidence.js';
import type { RouteHandlers } from '../http/route-binding.js';
import type { RunAnalyses } from '../analysis/run-analyses.js';
import { ServiceError } from '../http/service-error.js';
import { type RouteContext, ok, parse, queryObject, storedRun, uuidParam } from './route-context.js';

export type RunRouteName =
  | 'listRuns'
  | 'getRun'
  | 'readEvidence'
  | 'resolveAddress'
  | 'compareRuns'
  | 'compareRunCheckpoints'
  | 'listCheckpointComparisons'
  | 'getCheckpointComparison';

export function runRoutes(ctx: RouteContext): RouteHandlers<RunRouteName> {
  return {
    listRuns: (_m, url) => {
      const q = parse(RunsQuerySchema, queryObject(url), `query for GET ${ROUTES.listRuns.path}`);
      const page = ctx.store.listRuns(q);
      if (page === 'bad-cursor')
        throw new ServiceError('invalid-request', 'cursor is not one this service issued (use next_cursor as given)', 400);
      return ok({ runs: page.runs, next_cursor: page.nextCursor });
    },
    getRun: (m) => ok({ run: storedRun(ctx, m[1]!) }),
    readEvidence: async (m) => {
      const run = storedRun(ctx, m[1]!);
      let name: string;
      try {
        name = decodeURIComponent(m[2]!);
      } catch {
        throw new ServiceError('evidence_not_registered', 'evidence name is not valid percent-encoding', 404);
      }
      return ok({ evidence: await readEvidence(run, ctx.store.runDir(run.run_id), name) });
    },
    resolveAddress: async (m, url) => {
      const q = parse(ResolveQuerySchema, queryObject(url), 'query for resolve');
      const address = addressValue(q.address);
      if (address === undefined)
        throw new ServiceError(
          'invalid-request',
          `address ${JSON.stringify(q.address)} is not decimal, $ABCD or 0xABCD within 0..65535`,
          400,
        );
      const run = storedRun(ctx, m[1]!);
      let resolve: Awaited<ReturnType<RunAnalyses['resolverFor']>>;
      try {
        resolve = await ctx.analyses.resolverFor(run, q.context);
      } catch (e) {
        if (e instanceof EvidenceIntegrityError)
          throw new ServiceError('evidence_checksum_mismatch', e.message, 409, { evidence: e.evidenceName });
        throw e;
      }
      return ok(resolve(address));
    },
    compareRuns: async (_m, url) => {
      const q = parse(CompareQuerySchema, queryObject(url), `query for GET ${ROUTES.compareRuns.path}`);
      const baseline = storedRun(ctx, q.baseline);
      const candidate = storedRun(ctx, q.candidate);
      const sa = ctx.symbolAnalysis;
      if (!sa)
        return ok({ comparison_schema_version: 1, result: 'unavailable', reason: 'label/map analysis is not wired into this service' });
      const read = async (run: typeof baseline, name: string) => {
        if (!run.evidence.some((e) => e.name === name))
          throw new ServiceError('evidence_not_registered', `run ${run.run_id} has no ${name}`, 404);
        return (await readEvidenceFile(join(ctx.store.runDir(run.run_id), name))).toString('utf8');
      };
      return ok({ ...(await sa.compareRuns(baseline, candidate, read, q.context)) });
    },
    compareRunCheckpoints: async (_m, url) => {
      const q = parse(CheckpointCompareQuerySchema, queryObject(url), `query for GET ${ROUTES.compareRunCheckpoints.path}`);
      return ok(await compareStoredRuns(ctx.store, storedRun(ctx, q.baseline), storedRun(ctx, q.candidate)));
    },
    listCheckpointComparisons: (_m, url) => {
      const q = parse(CheckpointComparisonsQuerySchema, queryObject(url), `query for GET ${ROUTES.listCheckpointComparisons.path}`);
      return ok(listPairs(ctx.store, q.limit));
    },
    getCheckpointComparison: (m) => ok(storedPair(ctx.store, uuidParam(m[1]!, 'comparison id'))),
  };
}
