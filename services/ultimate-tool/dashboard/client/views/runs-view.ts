// Runs, newest first: filters (test, target, status) and cursor paging, straight from
// GET /v13/runs. The test list comes from GET /v13/project, fetched in parallel so it never
// delays the first page.
import { getJson } from '../api.js';
import { el, link, statusBadge, table } from '../dom.js';
import { pager, readTrail } from '../pager.js';
import { routeHash } from '../route.js';
import type { ViewContext } from '../view-context.js';
import type { RunSummary } from '../wire-types.js';

const STATUSES = ['passed', 'failed', 'crashed', 'timed_out', 'error'];
const TARGETS = ['vice', 'ultimate'];
const PAGE = 50;
/** A page size from the route (`#/runs?limit=10`), within the API's 1..100. */
function pageSize(raw: string | null): number {
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 && n <= 100 ? n : PAGE;
}

function select(name: string, values: string[], chosen: string | undefined): HTMLSelectElement {
  const s = el('select', { name, id: `filter-${name}` }, el('option', { value: '' }, `any ${name}`));
  for (const v of values) {
    const o = el('option', { value: v }, v);
    if (v === chosen) o.selected = true;
    s.appendChild(o);
  }
  return s;
}

export async function runsView(ctx: ViewContext): Promise<void> {
  const q = ctx.route.query;
  const filters = { test: q.get('test') ?? undefined, target: q.get('target') ?? undefined, status: q.get('status') ?? undefined };
  const trail = readTrail(q);
  const limit = q.get('limit') ?? undefined;

  const testSelect = select('test', filters.test ? [filters.test] : [], filters.test);
  const form = el(
    'form',
    { class: 'filters', id: 'runs-filters' },
    testSelect,
    select('target', TARGETS, filters.target),
    select('status', STATUSES, filters.status),
  );
  form.addEventListener('change', () => {
    const data = new FormData(form);
    const value = (k: string) => (data.get(k) as string | null) ?? undefined;
    // New filters: page 1 (no cursor, no history), same page size.
    location.hash = routeHash('runs', [], { test: value('test'), target: value('target'), status: value('status'), limit });
  });
  form.addEventListener('submit', (e) => e.preventDefault());

  // The project's tests fill the test filter when they arrive; the runs page does not wait for them.
  void getJson<{ project: { tests: Array<{ name: string }> } }>('/v13/project')
    .then((p) => {
      for (const t of p.project.tests) if (t.name !== filters.test) testSelect.appendChild(el('option', { value: t.name }, t.name));
    })
    .catch(() => undefined);

  const page = await getJson<{ runs: RunSummary[]; next_cursor: string | null }>('/v13/runs', {
    limit: pageSize(q.get('limit')),
    cursor: trail.cursor,
    ...filters,
  });
  if (!ctx.current()) return;
  const rows = table(
    ['started', 'test', 'target', 'status', 'run'],
    page.runs,
    (r) => [r.started_at, r.test, r.target, statusBadge(r.status), link(routeHash('run', [r.run_id]), r.run_id, { class: 'run-link' })],
    { id: 'runs-table', class: 'runs' },
  );
  const nav = pager('runs', trail, page.next_cursor, (at) => routeHash('runs', [], { ...filters, limit, ...at }));
  ctx.root.append(
    el('h1', {}, 'Runs'),
    form,
    el('p', { id: 'runs-count' }, `${page.runs.length} run(s) on this page${page.next_cursor ? '; more on the next' : ''}`),
    rows,
    nav,
  );
}
