// Jobs, updating live: GET /v13/jobs every second while the view is open (stopped when the user
// leaves it). Polling rather than a server-sent-event stream: it reuses the same JSON route any
// client can call, costs one small indexed read per second, needs no long-lived connection the
// service would have to drain on stop, and a one-second delay is well within what a person
// watching a job notices.
import { getJson } from '../api.js';
import { el, link, statusBadge, table } from '../dom.js';
import { routeHash } from '../route.js';
import type { ViewContext } from '../view-context.js';
import type { Job } from '../wire-types.js';

export const JOBS_POLL_MS = 1000;

function jobsTable(jobs: Job[]): HTMLTableElement {
  return table(
    ['created', 'test', 'targets', 'state', 'progress', 'runs', 'error'],
    jobs,
    (j) => [
      j.created_at,
      j.test,
      j.targets.join(', '),
      statusBadge(j.state, { class: `status status-${j.state} job-state`, 'data-job': j.job_id }),
      `${j.progress.completed_runs}/${j.progress.total_runs} · ${j.progress.phase}`,
      el('span', {}, ...j.run_ids.map((id) => link(routeHash('run', [id]), id.slice(0, 8), { class: 'job-run' }))),
      j.error ? `${j.error.code}: ${j.error.message}` : '',
    ],
    { id: 'jobs-table' },
  );
}

export async function jobsView(ctx: ViewContext): Promise<void> {
  const holder = el('div', { id: 'jobs-holder' });
  const stamp = el('p', { id: 'jobs-updated' });
  ctx.root.append(el('h1', {}, 'Jobs'), stamp, holder);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let polls = 0;
  const refresh = async () => {
    try {
      const r = await getJson<{ jobs: Job[] }>('/v13/jobs', { limit: 20 });
      if (!ctx.current()) return;
      holder.replaceChildren(r.jobs.length ? jobsTable(r.jobs) : el('p', { id: 'jobs-empty' }, 'No job yet.'));
      polls++;
      stamp.textContent = `updated ${new Date().toISOString()} (every ${JOBS_POLL_MS / 1000} s)`;
      stamp.dataset.polls = String(polls);
    } catch (e) {
      if (ctx.current()) stamp.textContent = `could not refresh: ${String(e)}`;
    }
    if (ctx.current()) timer = setTimeout(() => void refresh(), JOBS_POLL_MS);
  };
  ctx.onLeave(() => clearTimeout(timer));
  await refresh();
}
