// A whole suite from the dashboard (issue 31: "a whole suite is one call … from the dashboard, with
// progress"). `#/suite` lists the project's tests (all ticked) and the targets; one button starts
// them as one suite job (POST /v13/suite-jobs), the same request `start_suite_job` and
// `ultimate-tool test --all` make. `#/suite/<job_id>` follows that job: polled every second until
// it settles (the jobs view's reasons for polling hold here too), with each run's status as it
// is committed, a link to the run, and the counts by status.
// The Ultimate target resets the device once per run: the user ticks a box that names the exact
// count (and the REU image writes, when the project declares one), and the view asks for a probe
// right before starting — the contract's physical-device safety, as any client must follow it.
import { ApiError, cancelJob, getRoute, postRoute } from '../api.js';
import { el, link, statusBadge, table } from '../dom.js';
import { routeHash } from '../route.js';
import type { ViewContext } from '../view-context.js';
import type { Job, RunRecord } from '../wire-types.js';

export const SUITE_POLL_MS = 1000;

interface TargetInfo {
  target: string;
  available: boolean;
  reason: string | null;
  emulation: boolean;
  description: string;
}

function errorText(e: unknown): string {
  return e instanceof ApiError ? `${e.code} (HTTP ${e.status}): ${e.message}` : String(e);
}

const SETTLED = new Set(['finished', 'failed', 'cancelled']);

export async function suiteView(ctx: ViewContext): Promise<void> {
  if (ctx.route.args[0]) return suiteJobView(ctx, ctx.route.args[0]);
  const [{ project }, { targets }] = await Promise.all([
    getRoute<{ project: { tests: Array<Record<string, unknown>>; ultimate_reu_image: string | null } }>('getProject'),
    getRoute<{ targets: TargetInfo[] }>('listTargets'),
  ]);
  const names = project.tests.map((t) => String(t.name));
  const testBoxes = names.map((n) => el('input', { type: 'checkbox', class: 'suite-test', value: n, checked: '' }));
  const targetBoxes = targets.map((t) =>
    el('input', { type: 'checkbox', class: 'suite-target', value: t.target, ...(t.available ? {} : { disabled: '' }) }),
  );
  const confirm = el('input', { type: 'checkbox', id: 'suite-confirm' });
  const confirmText = el('span', { id: 'suite-confirm-text' });
  const confirmRow = el('label', { id: 'suite-confirm-row', hidden: '' }, confirm, ' ', confirmText);
  const start = el('button', { type: 'button', id: 'suite-start' }, 'Run the suite');
  const note = el('p', { id: 'suite-note' });
  const chosen = (boxes: HTMLInputElement[]) => boxes.filter((b) => b.checked && !b.disabled).map((b) => b.value);
  const update = () => {
    const tests = chosen(testBoxes);
    const wanted = chosen(targetBoxes);
    const ultimate = wanted.includes('ultimate');
    confirmRow.hidden = !ultimate;
    const reu = project.ultimate_reu_image ? ` and ${tests.length} writes of the REU image ${project.ultimate_reu_image}` : '';
    confirmText.textContent = `I confirm ${tests.length} resets of the Ultimate (one per run)${reu}.`;
    if (!ultimate) confirm.checked = false;
    start.disabled = tests.length === 0 || wanted.length === 0 || (ultimate && !confirm.checked);
    start.textContent = `Run ${tests.length} test${tests.length === 1 ? '' : 's'} on ${wanted.join(' and ') || '…'}`;
  };
  for (const b of [...testBoxes, ...targetBoxes, confirm]) b.addEventListener('change', update);
  start.addEventListener('click', async () => {
    start.disabled = true;
    const tests = chosen(testBoxes);
    const wanted = chosen(targetBoxes);
    try {
      const body: Record<string, unknown> = { targets: wanted, ...(tests.length === names.length ? {} : { tests }) };
      if (wanted.includes('ultimate')) {
        note.textContent = 'probing the Ultimate…';
        const { probe } = await postRoute<{ probe: { probe_id: string } }>('probeUltimate', {});
        Object.assign(body, {
          probe_id: probe.probe_id,
          confirmed_reset_count: tests.length,
          confirmed_reu_write_count: project.ultimate_reu_image ? tests.length : 0,
        });
      }
      const { job } = await postRoute<{ job: Job }>('startSuiteJob', body);
      location.hash = routeHash('suite', [job.job_id]);
    } catch (e) {
      note.textContent = `could not start the suite: ${errorText(e)}`;
      update();
    }
  });
  update();
  ctx.root.append(
    el('h1', {}, 'Run a suite'),
    el('p', {}, 'One suite job: one build, then every ticked test on each ticked target.'),
    el(
      'fieldset',
      { id: 'suite-targets' },
      el('legend', {}, 'Targets'),
      ...targets.map((t, i) =>
        el(
          'label',
          { class: 'suite-target-row' },
          targetBoxes[i]!,
          ` ${t.target} — ${t.available ? t.description : `unavailable: ${t.reason}`}`,
        ),
      ),
    ),
    el(
      'fieldset',
      { id: 'suite-tests' },
      el('legend', {}, `Tests (${names.length})`),
      ...names.map((n, i) => el('label', { class: 'suite-test-row' }, testBoxes[i]!, ` ${n}`)),
    ),
    confirmRow,
    el('p', {}, start),
    note,
  );
}

/** One suite job as it runs: progress, counts by status, and a row per committed run. */
async function suiteJobView(ctx: ViewContext, jobId: string): Promise<void> {
  const head = el('div', { id: 'suite-head' });
  const holder = el('div', { id: 'suite-runs' });
  const note = el('p', { id: 'suite-note' });
  ctx.root.append(el('h1', {}, 'Suite job'), head, note, holder);
  // Each run is read once, when it first appears: a run record never changes after it is committed.
  const runs = new Map<string, RunRecord>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const refresh = async (): Promise<void> => {
    try {
      const { job } = await getRoute<{ job: Job }>('getJob', { job_id: jobId });
      for (const id of job.run_ids) {
        if (runs.has(id)) continue;
        const { run } = await getRoute<{ run: RunRecord }>('getRun', { run_id: id });
        runs.set(id, run);
      }
      if (!ctx.current()) return;
      render(job);
      if (!SETTLED.has(job.state)) timer = setTimeout(() => void refresh(), SUITE_POLL_MS);
    } catch (e) {
      if (!ctx.current()) return;
      note.textContent = `could not refresh: ${errorText(e)}`;
      timer = setTimeout(() => void refresh(), SUITE_POLL_MS);
    }
  };
  const render = (job: Job) => {
    const p = job.progress;
    const counts = Object.entries(p.statuses ?? {}).map(([status, n]) => `${n} ${status}`);
    const cancel =
      job.state === 'queued' || job.state === 'running' ? el('button', { type: 'button', id: 'suite-cancel' }, 'Cancel') : null;
    cancel?.addEventListener('click', async () => {
      cancel.disabled = true;
      try {
        await cancelJob(job.job_id);
        note.textContent = 'cancel requested';
      } catch (e) {
        note.textContent = `could not cancel: ${errorText(e)}`;
        cancel.disabled = false;
      }
    });
    head.replaceChildren(
      el(
        'p',
        {},
        statusBadge(job.state, { id: 'suite-state' }),
        ` ${job.targets.join(', ')} · `,
        el('span', { id: 'suite-progress' }, `${p.completed_runs}/${p.total_runs} runs`),
        ` · ${p.phase}`,
        ' ',
        cancel,
      ),
      el('progress', { id: 'suite-bar', max: String(Math.max(1, p.total_runs)), value: String(p.completed_runs) }),
      el('p', { id: 'suite-counts' }, counts.length ? counts.join(' · ') : 'no run committed yet'),
      ...(job.error ? [el('p', { class: 'error', id: 'suite-error' }, `${job.error.code}: ${job.error.message}`)] : []),
    );
    const rows = job.run_ids.map((id) => runs.get(id)).filter((r): r is RunRecord => r !== undefined);
    holder.replaceChildren(
      table(
        ['test', 'target', 'status', 'reason', 'run'],
        rows,
        (r) => [
          r.test,
          r.target,
          statusBadge(r.status, { class: `status status-${r.status} suite-run-status`, 'data-test': r.test, 'data-target': r.target }),
          r.status_reason,
          link(routeHash('run', [r.run_id]), r.run_id.slice(0, 8), { class: 'suite-run' }),
        ],
        { id: 'suite-table' },
      ),
    );
  };
  ctx.onLeave(() => clearTimeout(timer));
  await refresh();
}
