// The dashboard's entry: a hash router that renders one view at a time into <main>. The view's
// state is on <main data-state="loading|ready|error" data-view="…" data-hash="…">, so tests and the benchmark
// wait for a condition instead of sleeping; the moment the first view was ready is kept in
// <body data-first-ready-ms> and the latest in <main data-ready-at-ms> (performance.now(), i.e. ms
// since navigation start) for the benchmark.
import { ApiError } from './api.js';
import { el } from './dom.js';
import { parseRoute } from './route.js';
import type { View, ViewContext } from './view-context.js';
import { checkpointView, checkpointsView } from './views/checkpoints-view.js';
import { jobsView } from './views/jobs-view.js';
import { nativeIntentView, nativeView } from './views/native-view.js';
import { runView } from './views/run-view.js';
import { runsView } from './views/runs-view.js';
import { suiteView } from './views/suite-view.js';
import { timelineView } from './views/timeline-view.js';

const VIEWS: Record<string, View> = {
  runs: runsView,
  run: runView,
  timeline: timelineView,
  checkpoints: checkpointsView,
  checkpoint: checkpointView,
  jobs: jobsView,
  suite: suiteView,
  native: (ctx) => (ctx.route.args.length ? nativeIntentView(ctx) : nativeView(ctx)),
};

let generation = 0;
let leaving: Array<() => void> = [];

async function render(): Promise<void> {
  for (const f of leaving) f();
  leaving = [];
  const mine = ++generation;
  const route = parseRoute(location.hash);
  const main = document.getElementById('view');
  if (!main) return;
  const root = el('div', { class: 'view-root' });
  main.replaceChildren(root);
  main.dataset.view = route.view;
  // Which address this state belongs to: "ready" for the current location.hash, not for the one
  // before a click whose hashchange has not been handled yet.
  main.dataset.hash = location.hash;
  main.dataset.state = 'loading';
  for (const a of document.querySelectorAll<HTMLAnchorElement>('header nav a'))
    a.classList.toggle('current', a.dataset.nav === route.view || a.dataset.nav === `${route.view}s`);
  const ctx: ViewContext = {
    root,
    route,
    onLeave: (f) => leaving.push(f),
    current: () => mine === generation,
  };
  const view = VIEWS[route.view];
  try {
    if (!view) throw new Error(`no view ${route.view}`);
    await view(ctx);
    if (!ctx.current()) return;
    main.dataset.state = 'ready';
    main.dataset.readyAtMs = String(performance.now());
    if (!document.body.dataset.firstReadyMs) document.body.dataset.firstReadyMs = String(performance.now());
  } catch (e) {
    if (!ctx.current()) return;
    const text = e instanceof ApiError ? `${e.code} (HTTP ${e.status}): ${e.message}` : String(e);
    root.append(el('p', { class: 'error', id: 'view-error' }, text));
    main.dataset.state = 'error';
  }
}

window.addEventListener('hashchange', () => void render());
void render();
