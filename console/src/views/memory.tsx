/**
 * The tenant's long-term memory, one namespace at a time: the namespaces one level below it (a
 * drill-down, paged), and its items, newest first or best match first for the words searched.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { useConsole } from "../context";
import { usePaged } from "../hooks";
import { routeHref } from "../route";
import type { ScoredMemoryItem } from "../types";
import { Ago, ErrorNote, Loading, MoreButton, Page } from "./common";

/** The platform's deepest namespace: nothing is listed below it. */
const MAX_SEGMENTS = 4;
const NAMESPACE_PAGE = 50;
const ITEM_PAGE = 25;
const PREVIEW_CHARS = 80;
const SCORE = new Intl.NumberFormat("en", { maximumSignificantDigits: 3 });

export function memoryHref(namespace: string[], key: string | null = null, query: string | null = null): string {
  return routeHref({ view: "memory", namespace, query, key });
}

export function MemoryPage(props: { namespace: string[]; query: string | null }) {
  const { me } = useConsole();
  const where = props.namespace.join(".");
  if (!me.powers.memoryRead) return <NoMemory />;
  return (
    <Page
      title={where ? `Memory: ${where}` : "Memory"}
      subtitle={
        <>
          Tenant <strong>{me.tenant.tenant_id}</strong> · what sessions' memory tools read and write
          {!me.powers.memoryWrite && " · read only (deleting needs memory:write)"}
        </>
      }
    >
      <Crumbs namespace={props.namespace} />
      <div class="memory-grid">
        {props.namespace.length < MAX_SEGMENTS && <Namespaces namespace={props.namespace} />}
        <Items namespace={props.namespace} query={props.query} />
      </div>
    </Page>
  );
}

export function NoMemory() {
  return (
    <Page title="Memory">
      <ErrorNote message="Reading memory needs the scope memory:read." />
    </Page>
  );
}

/** The way down from the top to `namespace`, each level a link. */
export function Crumbs(props: { namespace: string[]; item?: boolean }) {
  const { namespace } = props;
  const here = props.item ? -1 : namespace.length;
  return (
    <nav class="crumbs" aria-label="Namespace">
      <ol>
        {[[], ...namespace.map((_, i) => namespace.slice(0, i + 1))].map((path) => (
          <li key={path.length}>
            <a href={memoryHref(path)} aria-current={path.length === here ? "page" : undefined}>
              {path.at(-1) ?? "All namespaces"}
            </a>
          </li>
        ))}
      </ol>
    </nav>
  );
}

function Namespaces(props: { namespace: string[] }) {
  const { api } = useConsole();
  const { namespace } = props;
  const list = usePaged<string[], string>(`memory-namespaces|${namespace.join(".")}`, async (cursor) => {
    const body = { prefix: namespace, max_depth: namespace.length + 1, limit: NAMESPACE_PAGE, ...(cursor ? { cursor } : {}) };
    const page = await api.call((client) => client.POST("/v1/memory/namespaces", { body }));
    // The namespace itself is listed when items sit right in it: those show among the items.
    return { rows: page.data.filter((child) => child.length > namespace.length), next: page.next_cursor };
  });
  return (
    <section class="panel" aria-labelledby="namespaces-title">
      <h2 id="namespaces-title">{namespace.length > 0 ? "Below this namespace" : "Namespaces"}</h2>
      <Listing what="namespaces" loading={list.loading} error={list.error} count={list.rows.length} retry={list.reload}>
        <ul class="namespaces">
          {list.rows.map((child) => (
            <li key={child.join(".")}>
              <a href={memoryHref(child)}>{child.at(-1)}</a>
            </li>
          ))}
        </ul>
      </Listing>
      <MoreButton list={list} label="More namespaces" />
    </section>
  );
}

function Items(props: { namespace: string[]; query: string | null }) {
  const { api } = useConsole();
  const { namespace, query } = props;
  const list = usePaged<ScoredMemoryItem, number>(`memory-items|${namespace.join(".")}|${query}`, async (offset) => {
    const from = offset ?? 0;
    // The document marks `filter` as required though the platform defaults it to none.
    const body = { namespace_prefix: namespace, ...(query ? { query } : {}), filter: {}, limit: ITEM_PAGE, offset: from };
    const { data } = await api.call((client) => client.POST("/v1/memory/search", { body }));
    return { rows: data, next: data.length === ITEM_PAGE ? from + ITEM_PAGE : null };
  });
  return (
    <section class="panel" aria-labelledby="items-title">
      <h2 id="items-title">{query ? `Best matches for “${query}”` : "Items, newest first"}</h2>
      <SearchForm key={`${namespace.join(".")}|${query}`} namespace={namespace} query={query} />
      <Listing what="items" loading={list.loading} error={list.error} count={list.rows.length} retry={list.reload}>
        <table class="memory-items responsive">
          <caption class="visually-hidden">{query ? "Items, best match first" : "Items, newest first"}</caption>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Namespace</th>
              <th scope="col">Value</th>
              <th scope="col" class="num">
                Score
              </th>
              <th scope="col">Updated</th>
              <th scope="col">Created by</th>
            </tr>
          </thead>
          <tbody>
            {list.rows.map((item) => {
              const where = item.namespace.join(".");
              return (
                <tr key={`${where}/${item.key}`} data-item={`${where}/${item.key}`}>
                  <th scope="row" data-label="Key">
                    <a href={memoryHref(item.namespace, item.key)}>{item.key}</a>
                  </th>
                  <td data-label="Namespace">
                    <code>{where}</code>
                  </td>
                  <td data-label="Value">
                    <code class="preview">{preview(item.value)}</code>
                  </td>
                  <td data-label="Score" class="num">
                    {item.score === null ? "—" : SCORE.format(item.score)}
                  </td>
                  <td data-label="Updated">
                    <Ago iso={item.updated_at} />
                  </td>
                  <td data-label="Created by">{item.created_by}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </Listing>
      <MoreButton list={list} label="More items" />
    </section>
  );
}

/** A list's states: read first, failed with nothing to show, empty, or its rows (a failed next page is noted by `MoreButton`). */
function Listing(props: {
  what: string;
  loading: boolean;
  error: string | null;
  count: number;
  retry(): void;
  children: ComponentChildren;
}) {
  if (props.count === 0 && props.error) return <ErrorNote message={props.error} retry={props.retry} />;
  if (props.count === 0) return props.loading ? <Loading what={props.what} /> : <p class="muted">No {props.what} here.</p>;
  return <>{props.children}</>;
}

function SearchForm(props: { namespace: string[]; query: string | null }) {
  const [text, setText] = useState(props.query ?? "");
  const where = props.namespace.join(".");
  const submit = (event: Event) => {
    event.preventDefault();
    window.location.hash = memoryHref(props.namespace, null, text.trim() || null);
  };
  return (
    <form class="inline" role="search" onSubmit={submit}>
      <label for="memory-query">Search</label>
      <input
        id="memory-query"
        type="search"
        value={text}
        placeholder={where ? `words, within ${where}` : "words, in every namespace"}
        onInput={(event) => setText((event.target as HTMLInputElement).value)}
      />
      <button type="submit">Search</button>
    </form>
  );
}

/** A value on one line, cut short: the item's page shows it whole. */
function preview(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text;
}
