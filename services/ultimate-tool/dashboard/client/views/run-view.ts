// One run: status, expectations beside observations, evidence (the screenshot shown), the crash
// report of a crashed run, the diagnostic report and its items, supporting artifacts. Each part is
// its own /v13 request, so a failing analysis shows its error and the rest still renders.
import { ApiError, getJson } from '../api.js';
import { el, fields, json, link, show, statusBadge, table } from '../dom.js';
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

/** Expectation beside observation, key by key (the keys the record's expectations name). */
function expectationTable(run: RunRecord): HTMLTableElement {
  const o = run.observations;
  const rows: Array<[string, unknown, unknown]> = [
    ['observe', run.expectations.observe, o.observe],
    ['debug_register', run.expectations.debug_register, o.debug_register_hex ?? o.debug_register],
    ['screen_match', run.expectations.screen_match, run.screen_match],
    ['memory', run.expectations.memory, o.memory],
    ['budget', run.expectations.budget, run.timings.execute_ms === undefined ? null : { execute_ms: run.timings.execute_ms }],
  ];
  return table(['what', 'expected', 'observed'], rows, ([k, e, v]) => [k, show(e), show(v)], { id: 'expectations', class: 'compare' });
}

async function showEvidence(run: RunRecord, name: string, into: HTMLElement): Promise<void> {
  into.replaceChildren(el('p', {}, `loading ${name}…`));
  try {
    const r = await getJson<{ evidence: EvidenceRead }>(`/v13/runs/${run.run_id}/evidence/${encodeURIComponent(name)}`);
    const ev = r.evidence;
    if (ev.kind === 'image' && ev.base64 && ev.media_type === 'image/png')
      into.replaceChildren(el('img', { id: 'evidence-image', alt: ev.name, src: `data:image/png;base64,${ev.base64}` }));
    else if (ev.kind === 'text') into.replaceChildren(el('pre', { id: 'evidence-text' }, ev.text ?? ''));
    else
      into.replaceChildren(
        fields({ name: ev.name, media_type: ev.media_type, size: ev.size, sha256: ev.sha256, note: 'binary: size and SHA-256 only' }),
      );
  } catch (e) {
    into.replaceChildren(errorNote(e));
  }
}

async function screenshot(run: RunRecord): Promise<HTMLElement | null> {
  if (!run.evidence.some((e) => e.name === 'screenshot.png')) return null;
  try {
    const r = await getJson<{ evidence: EvidenceRead }>(`/v13/runs/${run.run_id}/evidence/screenshot.png`);
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

/** Resolver symbols as `name+offset` (the full objects stay in the JSON below). */
function symbolNames(symbols: unknown): unknown {
  if (!Array.isArray(symbols)) return symbols;
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
    const r = await getJson<Record<string, unknown>>(`/v13/runs/${run.run_id}/crash-report`);
    const site = (r.site ?? {}) as Record<string, unknown>;
    const resolution = (site.resolution ?? {}) as Record<string, unknown>;
    return section(
      'crash-report',
      'Crash report',
      fields(
        {
          kind: r.kind,
          site: site.address_hex,
          exact: site.exact,
          resolution: resolution.result,
          symbols: symbolNames(resolution.symbols),
        },
        { id: 'crash-fields' },
      ),
      el('h3', {}, 'registers'),
      fields(r.registers as Record<string, unknown>, { id: 'crash-registers' }),
      el('details', {}, el('summary', {}, 'full crash report (JSON)'), json(r)),
    );
  } catch (e) {
    return section('crash-report', 'Crash report', errorNote(e), run.crash_state ? json(run.crash_state) : el('span'));
  }
}

async function diagnosticsSection(run: RunRecord): Promise<HTMLElement> {
  const items = el('div', { id: 'diagnostic-items' });
  const picker = el('select', { id: 'diagnostic-section' }, ...SECTIONS.map((s) => el('option', { value: s }, s)));
  const loadItems = async () => {
    items.replaceChildren(el('p', {}, 'loading…'));
    try {
      const r = await getJson<{ total: number; items: unknown[] }>(`/v13/runs/${run.run_id}/diagnostic-items`, {
        section: picker.value,
        limit: 50,
      });
      items.replaceChildren(el('p', {}, `${r.total} item(s)`), ...r.items.map((i) => json(i)));
    } catch (e) {
      items.replaceChildren(errorNote(e));
    }
  };
  picker.addEventListener('change', () => void loadItems());
  try {
    const r = await getJson<Record<string, unknown>>(`/v13/runs/${run.run_id}/diagnostic-report`);
    void loadItems();
    return section(
      'diagnostics',
      'Diagnostic report',
      fields({ status: r.status, status_note: r.status_note, run_status: r.run_status }, { id: 'diagnostic-fields' }),
      el('details', {}, el('summary', {}, 'full report (JSON)'), json(r)),
      el('label', {}, 'items of section ', picker),
      items,
    );
  } catch (e) {
    return section('diagnostics', 'Diagnostic report', errorNote(e));
  }
}

export async function runView(ctx: ViewContext): Promise<void> {
  const id = ctx.route.args[0] ?? '';
  const { run } = await getJson<{ run: RunRecord }>(`/v13/runs/${encodeURIComponent(id)}`);
  const [shot, crash, diagnostics] = await Promise.all([screenshot(run), crashSection(run), diagnosticsSection(run)]);
  if (!ctx.current()) return;

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
    fields(
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
      el('details', {}, el('summary', {}, 'all observations (JSON)'), json(run.observations)),
    ),
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
    section('timings', 'Timings', fields(run.timings)),
  );
}
