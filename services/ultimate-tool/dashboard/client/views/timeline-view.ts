// The timeline of a run's debug-stream capture, one page per request
// (GET /v13/runs/{id}/timeline): the service reads only the index blocks a page touches, so the
// browser never holds more than one page. Filters (address range, access, source context) are
// passed to the API; "next page" follows next_cursor, "previous page" the route's history (pager.ts).
// Each bus row shows its CPU cycle and the cycles since the row above; rows from before the
// program's first instruction (the previous program, the boot) are marked as such.
import { ApiError, getRoute } from '../api.js';
import { el, link } from '../dom.js';
import { hex8 } from '../format.js';
import { pager, readTrail } from '../pager.js';
import { routeHash } from '../route.js';
import type { ViewContext } from '../view-context.js';
import type { TimelinePage, TimelineRow } from '../wire-types.js';

const FILTERS = ['address_from', 'address_to', 'access', 'context', 'limit'] as const;

function input(name: string, value: string | null, placeholder: string): HTMLInputElement {
  return el('input', { name, id: `timeline-${name}`, value: value ?? '', placeholder, size: '8' });
}

type Cell = string | number;

/** The rows' cells; `delta` is the cycles since the previous bus row of the page that has a cycle. */
function rowCells(rows: TimelineRow[]): Cell[][] {
  let previous: number | null = null;
  return rows.map((r) => {
    if (r.kind === 'gap') {
      previous = null; // clocks across lost datagrams are counted, but the row above is not the access before
      return [r.cursor, '', '', 'gap', '', '', `${r.missing_datagrams} datagram(s) lost`, '', ''];
    }
    if (r.kind === 'uncertain') {
      previous = null;
      return [r.cursor, '', '', 'uncertain', '', '', r.reason ?? '', '', ''];
    }
    const flags = [r.irq_asserted ? 'IRQ' : '', r.nmi_asserted ? 'NMI' : ''].filter(Boolean).join(' ');
    const src = r.source ? `${r.source.file}:${r.source.line}${r.source.symbol ? ` ${r.source.symbol}` : ''}` : '';
    const cycle = typeof r.cycle === 'number' ? r.cycle : null;
    const delta = cycle !== null && previous !== null ? cycle - previous : null;
    previous = cycle;
    return [
      r.cursor,
      cycle ?? '—',
      delta === null ? '' : delta >= 0 ? `+${delta}` : String(delta),
      r.access ?? '',
      r.address_hex ?? '',
      typeof r.data === 'number' ? hex8(r.data) : '',
      flags,
      src,
      r.before_program_start ? 'before start' : '',
    ];
  });
}

const HEADERS = ['cursor', 'cycle', 'Δ cycles', 'access', 'address', 'data', 'lines', 'source', 'program'];

function rowsTable(rows: TimelineRow[]): HTMLTableElement {
  const body = el('tbody');
  const cells = rowCells(rows);
  rows.forEach((r, i) => {
    const attrs: Record<string, string> = { class: `row-${r.kind}` };
    if (r.before_program_start) attrs.class += ' before-start';
    body.appendChild(el('tr', attrs, ...(cells[i] ?? []).map((c) => el('td', {}, c))));
  });
  return el('table', { id: 'timeline-rows' }, el('thead', {}, el('tr', {}, ...HEADERS.map((h) => el('th', {}, h)))), body);
}

function originNote(page: TimelinePage): string {
  const unit =
    page.cycle_unit === 'cpu_bus_cycle'
      ? 'CPU bus cycles (this stream mode leaves out the clocks the VIC takes: bad lines, sprites)'
      : 'clocks';
  const origin =
    page.cycle_origin === 'program_start'
      ? `${unit} from the program's first instruction`
      : page.cycle_origin === 'capture_start'
        ? `${unit} from the capture's first entry`
        : 'no exact cycles in this capture';
  const start =
    page.program_start === undefined
      ? ''
      : page.program_start === null
        ? ' · the program never started in this capture'
        : ` · program started at ${page.program_start.cursor}`;
  return `${origin}${start}`;
}

export async function timelineView(ctx: ViewContext): Promise<void> {
  const runId = ctx.route.args[0] ?? '';
  const q = ctx.route.query;
  const current = Object.fromEntries(FILTERS.map((f) => [f, q.get(f) ?? undefined])) as Record<
    (typeof FILTERS)[number],
    string | undefined
  >;
  const trail = readTrail(q);

  // Captures hold two entries per clock ("6510 & VIC"): "any" lists the VIC's half-cycles too;
  // read and write keep only the CPU's accesses.
  const access = el('select', { name: 'access', id: 'timeline-access' }, el('option', { value: '' }, 'any (CPU and VIC)'));
  for (const a of ['read', 'write']) {
    const o = el('option', { value: a }, `CPU ${a}`);
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
    page = await getRoute<TimelinePage>('getRunTimeline', { run_id: runId }, { ...current, cursor: trail.cursor });
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
    el('p', { id: 'timeline-origin' }, originNote(page)),
    rowsTable(page.rows),
    nav,
  );
}
