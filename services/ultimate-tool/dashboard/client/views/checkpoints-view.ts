// Stored checkpoint comparisons (GET /v13/checkpoint-comparisons) and one of them
// (GET /v13/checkpoint-comparisons/{id}) with its points and first divergence.
import { getRoute } from '../api.js';
import { fieldsTable, valueNode } from '../data-table.js';
import { el, link, show, statusBadge, table } from '../dom.js';
import { routeHash } from '../route.js';
import type { ViewContext } from '../view-context.js';

interface PairSummary {
  comparison_id: string;
  corrupt?: boolean;
  test?: string;
  created_at?: string;
  result?: string;
  first_divergence?: string | null;
  baseline?: { run_id: string; target: string };
  candidate?: { run_id: string; target: string };
}

export async function checkpointsView(ctx: ViewContext): Promise<void> {
  const r = await getRoute<{ checkpoint_comparisons: PairSummary[] }>('listCheckpointComparisons', {}, { limit: 200 });
  if (!ctx.current()) return;
  ctx.root.append(
    el('h1', {}, 'Checkpoint comparisons'),
    r.checkpoint_comparisons.length === 0
      ? el('p', { id: 'checkpoints-empty' }, 'No stored checkpoint comparison yet (start a job with compare_checkpoints).')
      : table(
          ['created', 'test', 'result', 'first divergence', 'baseline', 'candidate', 'comparison'],
          r.checkpoint_comparisons,
          (p) =>
            p.corrupt
              ? ['—', '—', 'corrupt record', '—', '—', '—', p.comparison_id]
              : [
                  p.created_at ?? '',
                  p.test ?? '',
                  statusBadge(p.result ?? ''),
                  show(p.first_divergence),
                  p.baseline ? link(routeHash('run', [p.baseline.run_id]), `${p.baseline.target}`) : '',
                  p.candidate ? link(routeHash('run', [p.candidate.run_id]), `${p.candidate.target}`) : '',
                  link(routeHash('checkpoint', [p.comparison_id]), p.comparison_id, { class: 'checkpoint-link' }),
                ],
          { id: 'checkpoints-table' },
        ),
  );
}

export async function checkpointView(ctx: ViewContext): Promise<void> {
  const id = ctx.route.args[0] ?? '';
  const r = await getRoute<{ checkpoint_comparison: PairSummary & { comparison: Record<string, unknown> } }>('getCheckpointComparison', {
    comparison_id: id,
  });
  if (!ctx.current()) return;
  const pair = r.checkpoint_comparison;
  const cmp = pair.comparison;
  const points = Array.isArray(cmp.points) ? (cmp.points as Array<Record<string, unknown>>) : [];
  ctx.root.append(
    el('h1', {}, 'Checkpoint comparison ', el('code', {}, pair.comparison_id)),
    el(
      'p',
      {},
      // Nothing compared is never a match, whatever an older stored record says.
      statusBadge(cmp.points_compared === 0 ? 'unavailable' : (pair.result ?? ''), { id: 'checkpoint-result' }),
      ' first divergence: ',
      el('span', { id: 'checkpoint-first-divergence' }, show(pair.first_divergence)),
    ),
    fieldsTable({
      test: pair.test,
      created_at: pair.created_at,
      baseline: pair.baseline?.run_id,
      candidate: pair.candidate?.run_id,
      points_compared: cmp.points_compared,
      points_diverged: cmp.points_diverged,
    }),
    table(
      ['point', 'result', 'detail'],
      points,
      // A point carries `matched` (true/false), not a `result`: show it as the API says it.
      (p) => [
        show(p.name ?? p.point),
        p.result !== undefined ? show(p.result) : typeof p.matched === 'boolean' ? `matched: ${p.matched}` : '—',
        valueNode(p.ranges ?? p.differences ?? '', 'ranges'),
      ],
      { id: 'checkpoint-points' },
    ),
    el('details', {}, el('summary', {}, 'the whole comparison'), fieldsTable(cmp, { id: 'checkpoint-details' })),
  );
}
