// The native routes of the service (SERVICE-API.md "Native"), as one list the service's route
// table spreads in. Bodies and queries are parsed with the closed schemas of native-records.ts.
import type { z } from 'zod';
import { readEvidence } from '../evidence.js';
import { describeIssues } from '../manifest.js';
import type { Manifest } from '../manifest.js';
import { ServiceError } from '../service-error.js';
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
} from './native-records.js';
import { startNativeRun } from './native-runs.js';
import { startSmokeJob } from './smoke-job.js';

export interface NativeReply {
  status: number;
  body: Record<string, unknown>;
}

export interface NativeRoute {
  method: string;
  re: RegExp;
  handler: (m: RegExpExecArray, url: URL, body: unknown) => Promise<NativeReply> | NativeReply;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function parse<T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> {
  const r = schema.safeParse(value);
  if (!r.success) throw new ServiceError('invalid-request', `invalid ${what}: ${describeIssues(r.error)}`, 400);
  return r.data;
}

function id(raw: string, what: string): string {
  if (!UUID.test(raw)) throw new ServiceError('invalid-request', `${what} ${JSON.stringify(raw)} is not a lower-case UUID v4`, 400);
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
): NativeRoute[] {
  return [
    {
      method: 'POST',
      re: /^\/v13\/native\/preparations$/,
      handler: async (_m, _u, body) => {
        const req = parse(NativePreparationRequestSchema, body, 'body of a native preparation');
        return ok(
          { preparation: await createNativePreparation(ctx.native, ctx.projectRoot, await manifest(), req.program, isoNow(ctx)) },
          201,
        );
      },
    },
    {
      method: 'GET',
      re: /^\/v13\/native\/preparations\/([^/]+)$/,
      handler: (m) => {
        const p = ctx.native.getPreparation(id(m[1]!, 'preparation id'));
        if (!p) throw new ServiceError('not-found', `no native preparation ${m[1]}`, 404);
        return ok({ preparation: p });
      },
    },
    {
      method: 'POST',
      re: /^\/v13\/native\/intents$/,
      handler: async (_m, _u, body) =>
        ok({ intent: await createNativeIntent(ctx, parse(NativeIntentRequestSchema, body, 'body of a native intent')) }, 201),
    },
    {
      method: 'GET',
      re: /^\/v13\/native\/intents$/,
      handler: (_m, url) => {
        const q = parse(NativeIntentsQuerySchema, query(url), 'query for GET /v13/native/intents');
        const page = ctx.native.listIntents(q);
        if (page === 'bad-cursor')
          throw new ServiceError('invalid-request', 'cursor is not one this service issued (use next_cursor as given)', 400);
        return ok({ intents: page.intents, next_cursor: page.nextCursor });
      },
    },
    {
      method: 'GET',
      re: /^\/v13\/native\/intents\/([^/]+)$/,
      handler: (m) => ok({ intent: getNativeIntent(ctx, id(m[1]!, 'intent id')) }),
    },
    {
      method: 'POST',
      re: /^\/v13\/native\/intents\/([^/]+)\/revoke$/,
      handler: (m, _u, body) => {
        parse(EmptyBodySchema, body, 'body of a revoke (expected {})');
        return ok({ intent: revokeNativeIntent(ctx, id(m[1]!, 'intent id')) });
      },
    },
    {
      method: 'POST',
      re: /^\/v13\/native\/runs$/,
      handler: async (_m, _u, body) => {
        const req = parse(NativeRunRequestSchema, body, 'body of a native run');
        return ok({ ...(await startNativeRun(ctx, req.intent_id, req.device_host)) }, 201);
      },
    },
    {
      method: 'GET',
      re: /^\/v13\/native\/runs\/([^/]+)$/,
      handler: (m) => {
        const r = ctx.native.getRun(id(m[1]!, 'native run id'));
        if (!r) throw new ServiceError('not-found', `no native run ${m[1]}`, 404);
        return ok({ native_run: r });
      },
    },
    {
      method: 'GET',
      re: /^\/v13\/native\/runs\/([^/]+)\/evidence\/([^/]*)$/,
      handler: async (m) => {
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
    },
    {
      method: 'POST',
      re: /^\/v13\/native\/health-checks$/,
      handler: async (_m, _u, body) => {
        const req = parse(
          NativeHealthCheckRequestSchema,
          body,
          'body of a native health check (it takes only intent_id, run_id and device_host; it cannot upload or run an update)',
        );
        return ok({ ...(await startNativeHealthCheck(ctx, req.intent_id, req.run_id, req.device_host)) }, 201);
      },
    },
    {
      method: 'POST',
      re: /^\/v13\/native\/smoke-jobs$/,
      handler: async (_m, _u, body) =>
        ok({ ...(await startSmokeJob(ctx, parse(NativeSmokeJobRequestSchema, body, 'body of a RISC-V smoke job'))) }, 201),
    },
  ];
}
