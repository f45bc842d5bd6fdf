/**
 * Iterating a list to its end: every list answers `{ data, next_cursor }` and takes the
 * previous page's `next_cursor` as `cursor`. Pass a function that fetches one page.
 */
import { expectData, type Result } from "./errors.ts";

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** The most pages one iteration follows: a longer list means a cursor that does not advance. */
export const MAX_PAGES = 10_000;

/**
 * Every item of every page, fetched lazily:
 *
 *     for await (const message of iteratePages((cursor) =>
 *       client.GET("/v1/sessions/{id}/messages", { params: { path: { id }, query: { cursor } } }))) { … }
 */
export async function* iteratePages<T>(
  fetchPage: (cursor: string | undefined) => Promise<Result<Page<T>>>,
): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const page = await expectData(fetchPage(cursor));
    yield* page.data;
    if (page.next_cursor === null) return;
    if (page.next_cursor === cursor) throw new Error("the list answered the same cursor twice");
    cursor = page.next_cursor;
  }
  throw new Error(`more than ${MAX_PAGES} pages`);
}

/** Every item of a list, in one array. */
export async function allPages<T>(fetchPage: (cursor: string | undefined) => Promise<Result<Page<T>>>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iteratePages(fetchPage)) items.push(item);
  return items;
}
