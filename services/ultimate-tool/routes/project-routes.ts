// The project family: the project and its manifest, the targets and whether they can serve, and
// the OpenAPI document of the route table.
import { packageVersion } from '../../../common/index.js';
import { openApiDocument } from '../api/openapi.js';
import type { RouteHandlers } from '../http/route-binding.js';
import { type RouteContext, ok } from './route-context.js';

export function projectRoutes(ctx: RouteContext): RouteHandlers<'getProject' | 'listTargets' | 'openApi'> {
  return {
    getProject: async () => {
      const m = await ctx.manifest();
      return ok({ project: { root: ctx.projectRoot, manifest: m, tests: m.tests, ultimate_reu_image: m.ultimate_reu_image } });
    },
    listTargets: () => ok({ targets: [ctx.targetInfo('vice'), ctx.targetInfo('ultimate')] }),
    openApi: () => ({ status: 200, body: openApiDocument(packageVersion()) }),
  };
}
