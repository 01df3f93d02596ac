// The native routes of the service (SERVICE-API.md "Native"), as one list the service's route
// table spreads in. Bodies and queries are parsed with the closed schemas of native-records.ts.
import type { z } from 'zod';
import { UUID_V4 } from '../../api/fields.js';
import { ROUTES } from '../../api/routes.js';
import type { RouteHandlers } from '../../http/route-binding.js';
import { readEvidence } from '../../runs/evidence.js';
import { describeIssues } from '../../project/manifest.js';
import type { Manifest } from '../../project/manifest.js';
import { ServiceError } from '../../http/service-error.js';
import { startNativeHealthCheck } from './health-check.js';
import { type NativeContext, isoNow } from './native-context.js';
import { createNativeIntent, getNativeIntent, revokeNativeIntent } from './native-intents.js';
import { createNativePreparation } from './native-preparations.js';
import {
  EmptyBodySchema,
  NativeHealthCheckRequestSchema,
  NativeIntentRequestSchema,
  NativeIntentsQuerySchema,
  NativePreparationRequestSchema,
  NativeRunRequestSchema,
  NativeSmokeJobRequestSchema,
} from '../../api/native-schemas.js';
import { startNativeRun } from './native-runs.js';
import { startSmokeJob } from './smoke-job.js';

export interface NativeReply {
  status: number;
  body: Record<string, unknown>;
}

/** The native family's handlers, by route name (api/routes.ts). */
export type NativeRoutes = RouteHandlers<NativeRouteName>;
export type NativeRouteName =
  | 'createNativePreparation'
  | 'getNativePreparation'
  | 'createNativeIntent'
  | 'listNativeIntents'
  | 'getNativeIntent'
  | 'revokeNativeIntent'
  | 'startNativeRun'
  | 'getNativeRun'
  | 'readNativeEvidence'
  | 'startNativeHealthCheck'
  | 'startRiscvSmokeJob';

function parse<T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> {
  const r = schema.safeParse(value);
  if (!r.success) throw new ServiceError('invalid-request', `invalid ${what}: ${describeIssues(r.error)}`, 400);
  return r.data;
}

function id(raw: string, what: string): string {
  if (!UUID_V4.test(raw)) throw new ServiceError('invalid-request', `${what} ${JSON.stringify(raw)} is not a lower-case UUID v4`, 400);
  return raw;
}

function query(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of url.searchParams) {
    if (k in out) throw new ServiceError('invalid-request', `query parameter ${k} given twice; expected it at most once`, 400);
    out[k] = v;
  }
  return out;
}

export function nativeRoutes(
  ctx: NativeContext,
  manifest: () => Promise<Manifest>,
  ok: (b: Record<string, unknown>, s?: number) => NativeReply,
): NativeRoutes {
  return {
    createNativePreparation: async (_m, _u, body) => {
      const req = parse(NativePreparationRequestSchema, body, 'body of a native preparation');
      return ok(
        { preparation: await createNativePreparation(ctx.native, ctx.projectRoot, await manifest(), req.program, isoNow(ctx)) },
        201,
      );
    },
    getNativePreparation: (m) => {
      const p = ctx.native.getPreparation(id(m[1]!, 'preparation id'));
      if (!p) throw new ServiceError('not-found', `no native preparation ${m[1]}`, 404);
      return ok({ preparation: p });
    },
    createNativeIntent: async (_m, _u, body) =>
      ok({ intent: await createNativeIntent(ctx, parse(NativeIntentRequestSchema, body, 'body of a native intent')) }, 201),
    listNativeIntents: (_m, url) => {
      const q = parse(NativeIntentsQuerySchema, query(url), `query for GET ${ROUTES.listNativeIntents.path}`);
      const page = ctx.native.listIntents(q);
      if (page === 'bad-cursor')
        throw new ServiceError('invalid-request', 'cursor is not one this service issued (use next_cursor as given)', 400);
      return ok({ intents: page.intents, next_cursor: page.nextCursor });
    },
    getNativeIntent: (m) => ok({ intent: getNativeIntent(ctx, id(m[1]!, 'intent id')) }),
    revokeNativeIntent: (m, _u, body) => {
      parse(EmptyBodySchema, body, 'body of a revoke (expected {})');
      return ok({ intent: revokeNativeIntent(ctx, id(m[1]!, 'intent id')) });
    },
    startNativeRun: async (_m, _u, body) => {
      const req = parse(NativeRunRequestSchema, body, 'body of a native run');
      return ok({ ...(await startNativeRun(ctx, req.intent_id, req.device_host)) }, 201);
    },
    getNativeRun: (m) => {
      const r = ctx.native.getRun(id(m[1]!, 'native run id'));
      if (!r) throw new ServiceError('not-found', `no native run ${m[1]}`, 404);
      return ok({ native_run: r });
    },
    readNativeEvidence: async (m) => {
      const r = ctx.native.getRun(id(m[1]!, 'native run id'));
      if (!r) throw new ServiceError('not-found', `no native run ${m[1]}`, 404);
      let name: string;
      try {
        name = decodeURIComponent(m[2]!);
      } catch {
        throw new ServiceError('evidence_not_registered', 'evidence name is not valid percent-encoding', 404);
      }
      const evidence = await readEvidence({ run_id: r.native_run_id, evidence: r.evidence }, ctx.native.runDir(r.native_run_id), name);
      return ok({ evidence });
    },
    startNativeHealthCheck: async (_m, _u, body) => {
      const req = parse(
        NativeHealthCheckRequestSchema,
        body,
        'body of a native health check (it takes only intent_id, run_id and device_host; it cannot upload or run an update)',
      );
      return ok({ ...(await startNativeHealthCheck(ctx, req.intent_id, req.run_id, req.device_host)) }, 201);
    },
    startRiscvSmokeJob: async (_m, _u, body) =>
      ok({ ...(await startSmokeJob(ctx, parse(NativeSmokeJobRequestSchema, body, 'body of a RISC-V smoke job'))) }, 201),
  };
}
