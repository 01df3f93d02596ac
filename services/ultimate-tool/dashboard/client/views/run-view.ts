// One run: status, expectations beside observations, the $D7FF writes with their cycle distances,
// evidence (the screenshot shown), the crash report of a crashed run, the diagnostic report and its
// items, supporting artifacts. Every value is a table cell written the way a C64 developer reads it
// (data-table.ts, format.ts: $D7FF, $AD, rounded durations) — no JSON blobs. Each part is its own
// /v13 request, so a failing analysis shows its error and the rest still renders.
import { ApiError, getRoute } from '../api.js';
import { fieldsTable, valueNode } from '../data-table.js';
import { el, link, statusBadge, table } from '../dom.js';
import { duration, hex8 } from '../format.js';
import { routeHash } from '../route.js';
import type { ViewContext } from '../view-context.js';
import type { EvidenceRead, RunRecord } from '../wire-types.js';

const SECTIONS = ['assertions', 'budget', 'checkpoints', 'comparison_sections', 'comparison_objects', 'comparison_symbols'];

function section(id: string, title: string, ...body: Node[]): HTMLElement {
  return el('section', { id }, el('h2', {}, title), ...body);
}

function errorNote(e: unknown): HTMLElement {
  const text = e instanceof ApiError ? `${e.code} (HTTP ${e.status}): ${e.message}` : String(e);
  return el('p', { class: 'error' }, text);
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null);

/** What the run observed for the budget: time used, cycles used against budget.cycles. */
function observedBudget(run: RunRecord): Obj | null {
  const o = run.observations;
  const cycles = obj(o.cycle_budget);
  const out: Obj = {};
  if (run.timings.execute_ms !== undefined) out.execute_ms = run.timings.execute_ms;
  if (cycles) {
    out.cycles_used = cycles.used;
    out.within = cycles.within;
    out.measured_to = cycles.measured_to;
  }
  return Object.keys(out).length ? out : null;
}

/** Expectation beside observation, key by key (the keys the record's expectations name). */
function expectationTable(run: RunRecord): HTMLTableElement {
  const o = run.observations;
  const e = run.expectations;
  const rows: Array<[string, unknown, unknown]> = [
    ['observe', e.observe, o.observe],
    ['debug_register', e.debug_register, o.debug_register],
    [
      'debug_register_writes',
      e.debug_register_writes,
      o.debug_register_writes === undefined ? undefined : `${(o.debug_register_writes as unknown[]).length} write(s), below`,
    ],
    ['screen_match', e.screen_match, run.screen_match],
    ['memory', e.memory, o.memory],
    ['budget', e.budget, observedBudget(run)],
  ];
  return table(
    ['what', 'expected', 'observed'],
    rows.filter(([, x, y]) => x !== undefined || y !== undefined),
    ([k, x, y]) => [k, valueNode(x, k), valueNode(y, k)],
    { id: 'expectations', class: 'compare' },
  );
}

interface WriteRow {
  value: number;
  cycle: number | null;
}
interface SequenceRow {
  index: number;
  expected_hex: string | null;
  expected_cycles: unknown;
  matched: boolean;
}

/** The $D7FF writes of the run in order, each with its cycle and the distance from the previous one. */
function writesSection(run: RunRecord): HTMLElement | null {
  const o = run.observations;
  const writes = Array.isArray(o.debug_register_writes) ? (o.debug_register_writes as WriteRow[]) : null;
  if (!writes) return null;
  const check = obj(o.debug_register_writes_check);
  const expected = Array.isArray(check?.rows) ? (check.rows as SequenceRow[]) : [];
  const n = Math.max(writes.length, expected.length);
  const rows = Array.from({ length: n }, (_, i) => i);
  const cycleNote =
    o.cycle_source === null || o.cycle_source === undefined
      ? 'this target counted no cycles'
      : `cycles from the program's first instruction (${String(o.cycle_source)})`;
  const exactNote =
    o.debug_register_writes_exact === false ? ` · ${String(o.debug_register_writes_note ?? 'writes may have been missed')}` : '';
  const headers = ['#', 'value', 'cycle', 'Δ cycles', ...(check ? ['expected', 'expected Δ', 'matched'] : [])];
  return section(
    'writes',
    '$D7FF writes',
    el('p', { id: 'writes-note' }, `${writes.length} write(s) · ${cycleNote}${exactNote}`),
    table(
      headers,
      rows,
      (i) => {
        const w = writes[i];
        const prev = writes[i - 1];
        const delta = w && prev && w.cycle !== null && prev.cycle !== null ? w.cycle - prev.cycle : null;
        const x = expected[i];
        return [
          i + 1,
          w ? hex8(w.value) : '—',
          w?.cycle ?? '—',
          delta ?? '—',
          ...(check ? [x?.expected_hex ?? '—', valueNode(x?.expected_cycles, 'cycles'), x ? (x.matched ? 'yes' : 'no') : '—'] : []),
        ];
      },
      { id: 'writes-table' },
    ),
  );
}

async function showEvidence(run: RunRecord, name: string, into: HTMLElement): Promise<void> {
  into.replaceChildren(el('p', {}, `loading ${name}…`));
  try {
    const r = await getRoute<{ evidence: EvidenceRead }>('readEvidence', { run_id: run.run_id, name });
    const ev = r.evidence;
    if (ev.kind === 'image' && ev.base64 && ev.media_type === 'image/png')
      into.replaceChildren(el('img', { id: 'evidence-image', alt: ev.name, src: `data:image/png;base64,${ev.base64}` }));
    else if (ev.kind === 'text') into.replaceChildren(el('pre', { id: 'evidence-text' }, ev.text ?? ''));
    else
      into.replaceChildren(
        fieldsTable({ name: ev.name, media_type: ev.media_type, size: ev.size, sha256: ev.sha256, note: 'binary: size and SHA-256 only' }),
      );
  } catch (e) {
    into.replaceChildren(errorNote(e));
  }
}

async function screenshot(run: RunRecord): Promise<HTMLElement | null> {
  if (!run.evidence.some((e) => e.name === 'screenshot.png')) return null;
  try {
    const r = await getRoute<{ evidence: EvidenceRead }>('readEvidence', { run_id: run.run_id, name: 'screenshot.png' });
    if (!r.evidence.base64) return null;
    return el(
      'figure',
      {},
      el('img', { id: 'screenshot', alt: 'screenshot.png', src: `data:image/png;base64,${r.evidence.base64}` }),
      el('figcaption', {}, 'screenshot.png'),
    );
  } catch (e) {
    return errorNote(e);
  }
}

/** Resolver symbols as `name+offset`, with the source line when the resolver has one. */
function symbolNames(symbols: unknown): string {
  if (!Array.isArray(symbols)) return '—';
  return symbols
    .map(
      (s: { name?: unknown; offset?: unknown }) =>
        `${String(s.name)}${typeof s.offset === 'number' && s.offset !== 0 ? `+${s.offset}` : ''}`,
    )
    .join(', ');
}

async function crashSection(run: RunRecord): Promise<HTMLElement | null> {
  if (run.status !== 'crashed') return null;
  try {
    const r = await getRoute<Obj>('getCrashReport', { run_id: run.run_id });
    const site = obj(r.site) ?? {};
    const resolution = obj(site.resolution) ?? {};
    const source = obj(resolution.source);
    const rest = Object.fromEntries(Object.entries(r).filter(([k]) => !['site', 'registers', 'api_schema_version', 'kind'].includes(k)));
    return section(
      'crash-report',
      'Crash report',
      fieldsTable(
        {
          kind: r.kind,
          site: site.address ?? null,
          exact: site.exact,
          resolution: resolution.result,
          symbols: symbolNames(resolution.symbols),
          ...(source ? { source: `${String(source.file)}:${String(source.line)}` } : {}),
        },
        { id: 'crash-fields' },
      ),
      el('h3', {}, 'registers'),
      fieldsTable(obj(r.registers) ?? {}, { id: 'crash-registers' }),
      el('details', {}, el('summary', {}, 'the whole crash report'), fieldsTable(rest, { id: 'crash-details' })),
    );
  } catch (e) {
    return section('crash-report', 'Crash report', errorNote(e), run.crash_state ? fieldsTable(run.crash_state as Obj) : el('span'));
  }
}

async function diagnosticsSection(run: RunRecord): Promise<HTMLElement> {
  const items = el('div', { id: 'diagnostic-items' });
  const picker = el('select', { id: 'diagnostic-section' }, ...SECTIONS.map((s) => el('option', { value: s }, s)));
  const loadItems = async () => {
    items.replaceChildren(el('p', {}, 'loading…'));
    try {
      const r = await getRoute<{ total: number; items: unknown[] }>(
        'getDiagnosticItems',
        { run_id: run.run_id },
        {
          section: picker.value,
          limit: 50,
        },
      );
      items.replaceChildren(
        el('p', {}, `${r.total} item(s)`),
        ...r.items.map((i) => (obj(i) ? fieldsTable(i as Obj, { class: 'fields diagnostic-item' }) : el('p', {}, String(valueNode(i))))),
      );
    } catch (e) {
      items.replaceChildren(errorNote(e));
    }
  };
  picker.addEventListener('change', () => void loadItems());
  try {
    const r = await getRoute<Obj>('getDiagnosticReport', { run_id: run.run_id });
    void loadItems();
    const rest = Object.fromEntries(
      Object.entries(r).filter(
        ([k]) => !['status', 'status_note', 'run_status', 'api_schema_version', 'diagnostic_report_schema_version'].includes(k),
      ),
    );
    return section(
      'diagnostics',
      'Diagnostic report',
      fieldsTable({ status: r.status, status_note: r.status_note, run_status: r.run_status }, { id: 'diagnostic-fields' }),
      fieldsTable(rest, { id: 'diagnostic-report' }),
      el('label', {}, 'items of section ', picker),
      items,
    );
  } catch (e) {
    return section('diagnostics', 'Diagnostic report', errorNote(e));
  }
}

/** Every observation; the screen text as the screen reads, not as a list of strings. */
function observationsTable(run: RunRecord): HTMLTableElement {
  const o = { ...run.observations };
  const screen = Array.isArray(o.screen_text) ? (o.screen_text as string[]) : null;
  delete o.screen_text;
  const t = fieldsTable(o, { id: 'observations' });
  if (screen)
    t.tBodies[0]?.appendChild(
      el(
        'tr',
        { 'data-field': 'screen_text' },
        el('th', {}, 'screen_text'),
        el('td', {}, el('pre', { class: 'screen' }, screen.join('\n'))),
      ),
    );
  return t;
}

export async function runView(ctx: ViewContext): Promise<void> {
  const id = ctx.route.args[0] ?? '';
  const { run } = await getRoute<{ run: RunRecord }>('getRun', { run_id: id });
  const [shot, crash, diagnostics] = await Promise.all([screenshot(run), crashSection(run), diagnosticsSection(run)]);
  if (!ctx.current()) return;
  const writes = writesSection(run);

  const viewer = el('div', { id: 'evidence-viewer' });
  const evidence = table(
    ['name', 'media type', 'size', 'sha256', ''],
    run.evidence,
    (e) => {
      const b = el('button', { type: 'button', class: 'evidence-open', 'data-name': e.name }, 'show');
      b.addEventListener('click', () => void showEvidence(run, e.name, viewer));
      return [e.name, e.media_type, e.size, el('code', {}, e.sha256), b];
    },
    { id: 'evidence' },
  );
  const hasTimeline = typeof run.observations.debug_stream === 'object' && run.observations.debug_stream !== null;
  ctx.root.append(
    el('h1', {}, 'Run ', el('code', {}, run.run_id)),
    el('p', {}, statusBadge(run.status, { id: 'run-status' }), ' ', el('span', { id: 'run-status-reason' }, run.status_reason)),
    fieldsTable(
      {
        test: run.test,
        target: run.target,
        emulation: run.emulation,
        job: run.job_id,
        started_at: run.started_at,
        finished_at: run.finished_at,
        artifact: run.candidate.artifact_name,
        artifact_sha256: run.candidate.artifact_sha256,
      },
      { id: 'run-fields' },
    ),
    hasTimeline ? el('p', {}, link(routeHash('timeline', [run.run_id]), 'open the timeline', { id: 'timeline-link' })) : el('span'),
    section(
      'expect-observe',
      'Expectations and observations',
      expectationTable(run),
      el('h3', {}, 'all observations'),
      observationsTable(run),
    ),
    ...(writes ? [writes] : []),
    section('evidence-section', 'Evidence', ...(shot ? [shot] : []), evidence, viewer),
    ...(crash ? [crash] : []),
    diagnostics,
    section(
      'artifacts',
      'Supporting artifacts',
      table(
        ['role', 'format', 'name', 'size', 'sha256'],
        run.supporting_artifacts,
        (a) => [a.role, a.format, a.name, a.size, el('code', {}, a.sha256)],
        { id: 'supporting-artifacts' },
      ),
    ),
    section(
      'timings',
      'Timings',
      table(['phase', 'duration'], Object.entries(run.timings), ([k, v]) => [k, duration(v)], { id: 'run-timings' }),
    ),
  );
}
