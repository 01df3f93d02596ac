// The timeline of a run's debug-stream capture, one page per request
// (GET /v13/runs/{id}/timeline): the service reads only the index blocks a page touches, so the
// browser never holds more than one page. Filters (address range, access, source context) are
// passed to the API; "next page" follows next_cursor, "previous page" the route's history (pager.ts).
import { ApiError, getJson } from '../api.js';
import { el, link, show, table } from '../dom.js';
import { pager, readTrail } from '../pager.js';
import { routeHash } from '../route.js';
import type { ViewContext } from '../view-context.js';
import type { TimelinePage, TimelineRow } from '../wire-types.js';

const FILTERS = ['address_from', 'address_to', 'access', 'context', 'limit'] as const;

function input(name: string, value: string | null, placeholder: string): HTMLInputElement {
  return el('input', { name, id: `timeline-${name}`, value: value ?? '', placeholder, size: '8' });
}

function rowCells(r: TimelineRow): Array<string | number> {
  if (r.kind === 'gap') return [r.cursor, 'gap', '', '', `${r.missing_datagrams} datagram(s) lost`, ''];
  if (r.kind === 'uncertain') return [r.cursor, 'uncertain', '', '', r.reason ?? '', ''];
  const flags = [r.irq_asserted ? 'IRQ' : '', r.nmi_asserted ? 'NMI' : ''].filter(Boolean).join(' ');
  const src = r.source ? `${r.source.file}:${r.source.line}${r.source.symbol ? ` ${r.source.symbol}` : ''}` : '';
  return [r.cursor, r.access ?? '', r.address_hex ?? '', show(r.data), flags, src];
}

export async function timelineView(ctx: ViewContext): Promise<void> {
  const runId = ctx.route.args[0] ?? '';
  const q = ctx.route.query;
  const current = Object.fromEntries(FILTERS.map((f) => [f, q.get(f) ?? undefined])) as Record<
    (typeof FILTERS)[number],
    string | undefined
  >;
  const trail = readTrail(q);

  const access = el('select', { name: 'access', id: 'timeline-access' }, el('option', { value: '' }, 'any access'));
  for (const a of ['read', 'write']) {
    const o = el('option', { value: a }, a);
    if (a === current.access) o.selected = true;
    access.appendChild(o);
  }
  const form = el(
    'form',
    { class: 'filters', id: 'timeline-filters' },
    input('address_from', current.address_from ?? null, 'from $0000'),
    input('address_to', current.address_to ?? null, 'to $FFFF'),
    access,
    input('context', current.context ?? null, 'file or symbol'),
    input('limit', current.limit ?? null, 'rows (256)'),
    el('button', { type: 'submit', id: 'timeline-apply' }, 'apply'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const next: Record<string, string | undefined> = {};
    for (const f of FILTERS) next[f] = ((data.get(f) as string | null) ?? '').trim() || undefined;
    location.hash = routeHash('timeline', [runId], next); // new filters: page 1, no history
  });

  ctx.root.append(el('h1', {}, 'Timeline of ', link(routeHash('run', [runId]), runId)), form);
  let page: TimelinePage;
  try {
    page = await getJson<TimelinePage>(`/v13/runs/${encodeURIComponent(runId)}/timeline`, { ...current, cursor: trail.cursor });
  } catch (e) {
    if (!ctx.current()) return;
    ctx.root.append(el('p', { class: 'error', id: 'timeline-error' }, e instanceof ApiError ? `${e.code}: ${e.message}` : String(e)));
    return;
  }
  if (!ctx.current()) return;
  const nav = pager('timeline', trail, page.next_cursor, (at) => routeHash('timeline', [runId], { ...current, ...at }));
  ctx.root.append(
    el(
      'p',
      { id: 'timeline-summary' },
      'cursor ',
      el('code', { id: 'timeline-cursor' }, trail.cursor ?? '0:0'),
      ` · ${page.rows.length} row(s) · mode ${page.mode} · scanned ${page.scanned_datagrams} of ${page.total_datagrams} datagrams`,
    ),
    table(['cursor', 'access', 'address', 'data', 'lines', 'source'], page.rows, rowCells, { id: 'timeline-rows' }),
    nav,
  );
}
