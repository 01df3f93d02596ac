// Driving and reading a paged dashboard view (runs, timeline, native intents) in the browser, and
// reading the same list's pages from the API by following next_cursor — the reference every page
// the dashboard shows is compared with.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

export interface PagedView {
  /** The pager's id prefix (`<id>-prev`, `<id>-next`, `<id>-page`): runs, timeline, native. */
  id: string;
  /** Elements whose text is one row's key (a run id, an intent id, a timeline cursor). */
  rowKeys: string;
}

/** What a paged view shows right now. */
export interface ShownPage {
  number: string;
  keys: string[];
  previous: boolean;
}

/** Waits until <main> is ready for the address in the location bar (not for the one before). */
export async function settled(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const main = document.querySelector('main');
      return main?.dataset.state === 'ready' && main.dataset.hash === location.hash;
    },
    undefined,
    { timeout: 30_000 },
  );
}

export async function shown(page: Page, view: PagedView): Promise<ShownPage> {
  return {
    number: (await page.textContent(`#${view.id}-page`)) ?? '',
    keys: await page.$$eval(view.rowKeys, (els) => els.map((e) => e.textContent ?? '')),
    previous: (await page.$(`#${view.id}-prev`)) !== null,
  };
}

/** Clicks a pager link (`next` or `prev`) and waits for the page it leads to. */
export async function follow(page: Page, view: PagedView, link: 'next' | 'prev'): Promise<ShownPage> {
  await page.click(`#${view.id}-${link}`);
  await settled(page);
  return shown(page, view);
}

/** Every page of an API list, as row keys, by following next_cursor from `firstPath`. */
export async function apiPages(
  get: (path: string) => Promise<{ status: number; body: any }>,
  firstPath: string,
  keysOf: (body: any) => string[],
): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | null = null;
  do {
    const sep = firstPath.includes('?') ? '&' : '?';
    const r = await get(cursor === null ? firstPath : `${firstPath}${sep}cursor=${encodeURIComponent(cursor)}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    pages.push(keysOf(r.body));
    cursor = r.body.next_cursor as string | null;
  } while (cursor !== null && pages.length < 100);
  return pages;
}

/**
 * From the first page (already open and settled): next twice, previous twice, asserting on each
 * page exactly the rows of the API's page, the page number, and no "previous" on page 1.
 */
export async function forwardTwiceBackTwice(page: Page, view: PagedView, expected: string[][]): Promise<void> {
  assert.ok(expected.length >= 3, `the list needs at least three pages, the API has ${expected.length}`);
  const want = (n: number): ShownPage => ({ number: `page ${n}`, keys: expected[n - 1] ?? [], previous: n > 1 });
  assert.deepEqual(await shown(page, view), want(1));
  assert.deepEqual(await follow(page, view, 'next'), want(2));
  assert.deepEqual(await follow(page, view, 'next'), want(3));
  assert.deepEqual(await follow(page, view, 'prev'), want(2));
  assert.deepEqual(await follow(page, view, 'prev'), want(1));
  const hash = await page.evaluate(() => location.hash);
  assert.ok(!/[?&](cursor|back)=/.test(hash), `page 1 has no cursor and no history: ${hash}`);
}

/**
 * After forwardTwiceBackTwice the browser's history is pages 1, 2, 3, 2, 1: back shows 2 then 3,
 * forward 2 again, and a reload of page 2 still shows page 2 with its way back to page 1.
 */
export async function browserHistory(page: Page, view: PagedView, expected: string[][]): Promise<void> {
  const want = (n: number): ShownPage => ({ number: `page ${n}`, keys: expected[n - 1] ?? [], previous: n > 1 });
  await page.goBack();
  await settled(page);
  assert.deepEqual(await shown(page, view), want(2));
  await page.goBack();
  await settled(page);
  assert.deepEqual(await shown(page, view), want(3));
  await page.goForward();
  await settled(page);
  assert.deepEqual(await shown(page, view), want(2));
  await page.reload();
  await settled(page);
  assert.deepEqual(await shown(page, view), want(2));
  assert.deepEqual(await follow(page, view, 'prev'), want(1));
}
