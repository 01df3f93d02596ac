// The run analyses family: timeline pages, the diagnostic report and its items, the crash report
// (run-analyses.ts over the cores in timeline/ and analysis/).
import { CrashReportQuerySchema, DiagnosticItemsQuerySchema, NoQuerySchema, TimelineQuerySchema } from '../api/schemas.js';
import type { RouteHandlers } from '../http/route-binding.js';
import { type RouteContext, ok, parse, queryObject, storedRun } from './route-context.js';

export type AnalysisRouteName = 'getRunTimeline' | 'getDiagnosticReport' | 'getDiagnosticItems' | 'getCrashReport';

export function analysisRoutes(ctx: RouteContext): RouteHandlers<AnalysisRouteName> {
  const a = ctx.analyses;
  return {
    getRunTimeline: async (m, url) => {
      const q = parse(TimelineQuerySchema, queryObject(url), 'query for a run timeline');
      return ok(await a.timeline(storedRun(ctx, m[1]!), q));
    },
    getDiagnosticReport: async (m, url) => {
      parse(NoQuerySchema, queryObject(url), 'query for a diagnostic report');
      return ok(await a.diagnosticReport(storedRun(ctx, m[1]!)));
    },
    getDiagnosticItems: async (m, url) => {
      const run = storedRun(ctx, m[1]!);
      const q = parse(DiagnosticItemsQuerySchema, queryObject(url), 'query for diagnostic items');
      return ok(await a.diagnosticItems(run, q.section, q.limit, q.cursor));
    },
    getCrashReport: async (m, url) => {
      const q = parse(CrashReportQuerySchema, queryObject(url), 'query for a crash report');
      return ok(await a.crashReport(storedRun(ctx, m[1]!), q.context));
    },
  };
}
