// The captures family: the two-step debug-stream and source-linked captures (captures.ts).
// Prepare and cancel answer at once; a start answers with the queued capture job.
import {
  CapturePrepareRequestSchema,
  CaptureStartRequestSchema,
  SourceLinkedPrepareRequestSchema,
  SourceLinkedStartRequestSchema,
} from '../api/schemas.js';
import type { RouteHandlers } from '../http/route-binding.js';
import { type RouteContext, ok, parse, uuidParam } from './route-context.js';

export type CaptureRouteName =
  | 'prepareDebugStreamCapture'
  | 'prepareSourceLinkedCapture'
  | 'cancelDebugStreamPreparation'
  | 'cancelSourceLinkedPreparation'
  | 'startDebugStreamCapture'
  | 'startSourceLinkedCapture';

export function captureRoutes(ctx: RouteContext): RouteHandlers<CaptureRouteName> {
  const c = ctx.captures;
  const id = (raw: string) => uuidParam(raw, 'preparation id');
  return {
    prepareDebugStreamCapture: async (_m, _u, body) =>
      ok({ preparation: await c.prepareDebugStream(parse(CapturePrepareRequestSchema, body, 'body of a debug-stream preparation')) }, 201),
    prepareSourceLinkedCapture: async (_m, _u, body) =>
      ok(
        { preparation: await c.prepareSourceLinked(parse(SourceLinkedPrepareRequestSchema, body, 'body of a source-linked preparation')) },
        201,
      ),
    cancelDebugStreamPreparation: async (m) => ok({ preparation: await c.cancel(id(m[1]!)) }),
    cancelSourceLinkedPreparation: async (m) => ok({ preparation: await c.cancel(id(m[1]!)) }),
    startDebugStreamCapture: async (m, _u, body) =>
      ok({ job: await c.startDebugStream(id(m[1]!), parse(CaptureStartRequestSchema, body, 'body of a debug-stream capture start')) }, 201),
    startSourceLinkedCapture: async (m, _u, body) =>
      ok(
        { job: await c.startSourceLinked(id(m[1]!), parse(SourceLinkedStartRequestSchema, body, 'body of a source-linked capture start')) },
        201,
      ),
  };
}
