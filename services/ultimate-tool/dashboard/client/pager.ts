// "first / previous / next page" over the API's newest-first keyset cursors. The API hands out
// only `next_cursor`, so the way back lives in the route itself: `cursor` is this page's cursor
// and `back` (repeated, oldest first) the cursors of the pages between the first page and this
// one. Every page is then its own address — reload, a shared link and the browser's back/forward
// all land on the same page — and the API needs nothing new. The first page has no cursor, so
// "previous" from page 2 drops `cursor` altogether; a filter change builds a new route without
// `cursor` and `back`, which is page 1 with an empty history.
import { el, link } from './dom.js';
import type { RouteQuery } from './route.js';

export interface PageTrail {
  /** This page's cursor; undefined on the first page. */
  cursor: string | undefined;
  /** The cursors of the pages after the first and before this one, in the order they were visited. */
  back: string[];
}

export function readTrail(query: URLSearchParams): PageTrail {
  const cursor = query.get('cursor') || undefined;
  // Without a cursor this is the first page, whatever `back` says: nothing lies before it.
  return { cursor, back: cursor ? query.getAll('back').filter((c) => c !== '') : [] };
}

/**
 * The pager under a paged list. `at` turns a page's `{ cursor, back }` into the view's route with
 * its filters kept. Links get ids `<id>-first`, `<id>-prev`, `<id>-next`; the page number is
 * `<id>-page`. "first" and "previous" do not exist on the first page.
 */
export function pager(id: string, trail: PageTrail, nextCursor: string | null, at: (page: RouteQuery) => string): HTMLElement {
  const nav = el('nav', { class: 'pager', id: `${id}-pager` });
  const { cursor, back } = trail;
  if (cursor) {
    nav.append(
      link(at({}), 'first page', { id: `${id}-first` }),
      link(at({ cursor: back[back.length - 1], back: back.slice(0, -1) }), 'previous page', { id: `${id}-prev`, rel: 'prev' }),
    );
  }
  nav.append(el('span', { id: `${id}-page`, class: 'page-number' }, `page ${cursor ? back.length + 2 : 1}`));
  if (nextCursor)
    nav.append(link(at({ cursor: nextCursor, back: cursor ? [...back, cursor] : [] }), 'next page', { id: `${id}-next`, rel: 'next' }));
  return nav;
}
