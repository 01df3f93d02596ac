// The probes family: a five-minute single-use probe of the Ultimate's identity (reads only;
// retried up to three attempts in the ordinary gate, one with strict_gate).
import { UltimateDevice } from '../../../engines/ultimate/index.js';
import { ROUTES } from '../api/routes.js';
import { ProbeRequestSchema } from '../api/schemas.js';
import { ProbeRateLimiter, keepProbe, newProbe, probeView } from '../safety/probes.js';
import type { RouteHandlers } from '../http/route-binding.js';
import { ServiceError } from '../http/service-error.js';
import { type RouteContext, ok, parse } from './route-context.js';

export function probeRoutes(ctx: RouteContext): RouteHandlers<'probeUltimate'> {
  /** Every probe touches the device: rate-limited (probes.ts), checked before the device is. */
  const rate = new ProbeRateLimiter();
  return {
    probeUltimate: async (_m, _u, body) => {
      const req = parse(ProbeRequestSchema, body, `body for POST ${ROUTES.probeUltimate.path}`);
      const u = ctx.jobs.ctx.ultimate;
      if (!u) throw new ServiceError('target_unavailable', ctx.targetInfo('ultimate').reason ?? 'not configured', 503);
      rate.take(ctx.now());
      const device = new UltimateDevice(u.device);
      try {
        let snap: Awaited<ReturnType<UltimateDevice['probe']>> | undefined;
        let lastErr: unknown;
        for (let attempt = 0; attempt < (req.strict_gate ? 1 : 3) && !snap; attempt++) {
          try {
            snap = await device.probe();
          } catch (e) {
            lastErr = e;
          }
        }
        if (!snap) throw new ServiceError('target_unavailable', `the device did not answer the probe: ${(lastErr as Error)?.message}`, 503);
        const p = newProbe(snap, req.strict_gate, ctx.now());
        if (u.virtualDevice) p.snapshot.virtual = true;
        keepProbe(ctx.store, p, ctx.now());
        return ok({ probe: probeView(p) }, 201);
      } finally {
        await device.close();
      }
    },
  };
}
