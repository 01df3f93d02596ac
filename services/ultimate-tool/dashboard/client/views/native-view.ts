// Native intents and their state (GET /v13/native/intents, docs/ultimate/SERVICE-API.md "Native";
// services/ultimate-tool/jobs/native/). A service from before the native flow answers 404 there: the
// view says so plainly instead of showing an error.
import { ROUTE_PATHS } from '../../../api/paths.js';
import { ApiError, getRoute } from '../api.js';
import { el, fields, json, link, show, statusBadge, table } from '../dom.js';
import { pager, readTrail } from '../pager.js';
import { routeHash } from '../route.js';
import type { ViewContext } from '../view-context.js';
import type { NativeIntent } from '../wire-types.js';

const STATES = ['active', 'suspended', 'revoked', 'expired', 'exhausted', 'consumed'];
const PAGE = 50;
/** A page size from the route (`#/native?limit=10`), within the API's 1..200. */
function pageSize(raw: string | null): number {
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 && n <= 200 ? n : PAGE;
}

function unavailable(ctx: ViewContext): void {
  ctx.root.append(
    el('h1', {}, 'Native intents'),
    el(
      'p',
      { id: 'native-unavailable', class: 'notice' },
      `The native flow is not available on this service (GET ${ROUTE_PATHS.listNativeIntents.path} answered 404).`,
    ),
  );
}

export async function nativeView(ctx: ViewContext): Promise<void> {
  const q = ctx.route.query;
  const state = q.get('state') ?? undefined;
  const limit = q.get('limit') ?? undefined;
  const trail = readTrail(q);
  let page: { intents: NativeIntent[]; next_cursor: string | null };
  try {
    page = await getRoute('listNativeIntents', {}, { limit: pageSize(limit ?? null), state, cursor: trail.cursor });
  } catch (e) {
    if (e instanceof ApiError && e.status === 404 && e.code === 'not-found') return unavailable(ctx);
    throw e;
  }
  if (!ctx.current()) return;
  const picker = el(
    'select',
    { id: 'native-state' },
    el('option', { value: '' }, 'any state'),
    ...STATES.map((s) => el('option', { value: s }, s)),
  );
  picker.value = state ?? '';
  picker.addEventListener('change', () => {
    location.hash = routeHash('native', [], { state: picker.value || undefined, limit }); // page 1, no history
  });
  const nav = pager('native', trail, page.next_cursor, (at) => routeHash('native', [], { state, limit, ...at }));
  ctx.root.append(
    el('h1', {}, 'Native intents'),
    el('label', {}, 'state ', picker),
    table(
      ['created', 'program', 'mode', 'state', 'reason', 'health gate', 'device', 'runs', 'expires', 'intent'],
      page.intents,
      (i) => [
        i.created_at,
        i.program,
        i.mode,
        statusBadge(i.state, { class: `status status-${i.state} intent-state` }),
        show(i.state_reason),
        i.health_gate,
        show(i.identity.device_host),
        `${i.runs_started}${i.max_runs === null ? '' : ` / ${i.max_runs}`}`,
        show(i.expires_at),
        link(routeHash('native', [i.intent_id]), i.intent_id, { class: 'intent-link' }),
      ],
      { id: 'native-intents' },
    ),
    nav,
  );
  if (!page.intents.length)
    ctx.root.append(
      el(
        'p',
        { id: 'native-empty', class: 'notice' },
        state
          ? `No native intent is ${state}.`
          : 'No native intents yet: create_native_preparation, then probe_ultimate and create_native_intent.',
      ),
    );
}

export async function nativeIntentView(ctx: ViewContext): Promise<void> {
  const id = ctx.route.args[0] ?? '';
  let intent: NativeIntent;
  try {
    intent = (await getRoute<{ intent: NativeIntent }>('getNativeIntent', { intent_id: id })).intent;
  } catch (e) {
    if (e instanceof ApiError && e.status === 404 && e.code === 'not-found' && /no route/.test(e.message)) return unavailable(ctx);
    throw e;
  }
  if (!ctx.current()) return;
  const { runs = [], identity, ...rest } = intent;
  ctx.root.append(
    el('h1', {}, 'Native intent ', el('code', {}, intent.intent_id)),
    el('p', {}, statusBadge(intent.state, { id: 'intent-state' }), ' ', show(intent.state_reason)),
    fields(rest as unknown as Record<string, unknown>, { id: 'intent-fields' }),
    el('h2', {}, 'Bound identity'),
    fields(identity),
    el('h2', {}, 'Runs'),
    table(
      ['native run', 'state', 'started', 'finished'],
      runs,
      (r) => [show(r.native_run_id), show(r.state), show(r.started_at), show(r.finished_at)],
      { id: 'intent-runs' },
    ),
    el('details', {}, el('summary', {}, 'intent (JSON)'), json(intent)),
  );
}
