// Jobs, updating live: GET /v13/jobs every second while the view is open (stopped when the user
// leaves it). Polling rather than a server-sent-event stream: it reuses the same JSON route any
// client can call, costs one small indexed read per second, needs no long-lived connection the
// service would have to drain on stop, and a one-second delay is well within what a person
// watching a job notices.
// A queued or running job has a Cancel button (POST …/cancel, the dashboard's one request that
// changes anything): a queued job then never runs, a running one stops at its next safe step.
import { ApiError, cancelJob, getRoute } from '../api.js';
import { el, link, statusBadge, table } from '../dom.js';
import { routeHash } from '../route.js';
import type { ViewContext } from '../view-context.js';
import type { Job } from '../wire-types.js';

export const JOBS_POLL_MS = 1000;

/** The next poll (within a second) shows the job's new state. */
function cancelButton(j: Job, note: HTMLElement): HTMLButtonElement | string {
  if (j.state !== 'queued' && j.state !== 'running') return '';
  const b = el('button', { type: 'button', class: 'job-cancel', 'data-job': j.job_id }, 'Cancel');
  b.addEventListener('click', async () => {
    b.disabled = true;
    try {
      await cancelJob(j.job_id);
      note.textContent = `cancel requested for job ${j.job_id}`;
    } catch (e) {
      note.textContent = `could not cancel job ${j.job_id}: ${e instanceof ApiError ? `${e.code} (HTTP ${e.status}): ${e.message}` : String(e)}`;
      b.disabled = false;
    }
  });
  return b;
}

function jobsTable(jobs: Job[], note: HTMLElement): HTMLTableElement {
  return table(
    ['created', 'test', 'targets', 'state', 'progress', 'runs', 'error', ''],
    jobs,
    (j) => [
      j.created_at,
      j.test,
      j.targets.join(', '),
      statusBadge(j.state, { class: `status status-${j.state} job-state`, 'data-job': j.job_id }),
      `${j.progress.completed_runs}/${j.progress.total_runs} · ${j.progress.phase}`,
      // One link per run, separated: side by side they read as one long id.
      el(
        'span',
        {},
        ...j.run_ids.flatMap((id, i) => [...(i ? [', '] : []), link(routeHash('run', [id]), id.slice(0, 8), { class: 'job-run' })]),
      ),
      j.error ? `${j.error.code}: ${j.error.message}` : '',
      cancelButton(j, note),
    ],
    { id: 'jobs-table' },
  );
}

export async function jobsView(ctx: ViewContext): Promise<void> {
  const holder = el('div', { id: 'jobs-holder' });
  const stamp = el('p', { id: 'jobs-updated' });
  const note = el('p', { id: 'jobs-note' });
  ctx.root.append(el('h1', {}, 'Jobs'), stamp, note, holder);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let polls = 0;
  const refresh = async () => {
    try {
      const r = await getRoute<{ jobs: Job[] }>('listJobs', {}, { limit: 20 });
      if (!ctx.current()) return;
      holder.replaceChildren(r.jobs.length ? jobsTable(r.jobs, note) : el('p', { id: 'jobs-empty' }, 'No job yet.'));
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
