/**
 * One memory item: its value pretty-printed, who wrote it and when it expires, its last versions
 * (each value behind a disclosure), and its deletion for callers with memory:write.
 */
import { isNotFound } from "../api";
import { useConsole } from "../context";
import { formatJson, formatNumber } from "../format";
import { unconditional, usePoll } from "../hooks";
import type { MemoryItem, MemoryVersion } from "../types";
import { Ago, ConfirmedButton, ErrorNote, Loading, Page } from "./common";
import { Crumbs, memoryHref, NoMemory } from "./memory";

interface ItemAddress {
  namespace: string[];
  itemKey: string;
}

export function MemoryItemPage(props: ItemAddress) {
  const { api, me } = useConsole();
  const where = props.namespace.join(".");
  const query = { namespace: where, key: props.itemKey };
  // Read once, not polled: reading an item that refreshes its time to live restarts it.
  const item = usePoll<MemoryItem>(
    `memory-item|${where}|${props.itemKey}`,
    () => unconditional(api.call((client) => client.GET("/v1/memory/items", { params: { query } }))),
    null,
  );
  if (!me.powers.memoryRead) return <NoMemory />;
  const title = `Item ${props.itemKey}`;
  const data = item.data;
  return (
    <Page
      title={title}
      subtitle={
        <>
          in <code>{where}</code>
          {data && <> · version {formatNumber(data.version)}</>}
        </>
      }
      actions={me.powers.memoryWrite && data && <DeleteItem {...props} />}
    >
      <Crumbs namespace={props.namespace} item />
      {!data && item.loading ? (
        <Loading what="the item" />
      ) : !data ? (
        <ErrorNote
          message={
            isNotFound(item.failure)
              ? `No item ${props.itemKey} in ${where}: it was deleted, or it expired.`
              : (item.error ?? "The item could not be read.")
          }
          retry={isNotFound(item.failure) ? undefined : item.refresh}
        />
      ) : (
        <div class="memory-grid memory-item">
          <section class="panel" aria-labelledby="value-title">
            <h2 id="value-title">Value</h2>
            <dl class="facts">
              <dt>Version</dt>
              <dd>{formatNumber(data.version)}</dd>
              <dt>Created by</dt>
              <dd>
                {data.created_by} <Ago iso={data.created_at} />
              </dd>
              <dt>Updated</dt>
              <dd>
                <Ago iso={data.updated_at} />
              </dd>
              <dt>Expires</dt>
              <dd>{data.expires_at ? <time dateTime={data.expires_at}>{data.expires_at}</time> : "never (kept until deleted)"}</dd>
            </dl>
            <pre class="memory-value">{formatJson(data.value)}</pre>
          </section>
          <Versions {...props} latest={data.version} />
        </div>
      )}
    </Page>
  );
}

function Versions(props: ItemAddress & { latest: number }) {
  const { api } = useConsole();
  const query = { namespace: props.namespace.join("."), key: props.itemKey };
  const versions = usePoll<{ data: MemoryVersion[] }>(
    `memory-versions|${query.namespace}|${query.key}|${props.latest}`,
    () => unconditional(api.call((client) => client.GET("/v1/memory/items/versions", { params: { query } }))),
    null,
  );
  return (
    <section class="panel" aria-labelledby="memory-versions-title">
      <h2 id="memory-versions-title">Versions</h2>
      <p class="hint">The last 10 are kept, newest first.</p>
      {versions.error && !versions.data ? (
        <ErrorNote message={versions.error} retry={versions.refresh} />
      ) : !versions.data ? (
        <Loading what="the versions" />
      ) : (
        <ol class="memory-versions">
          {versions.data.data.map((version) => (
            <li key={version.version} data-version={version.version}>
              <details>
                <summary>
                  Version {version.version} · {version.created_by} <Ago iso={version.created_at} />
                </summary>
                <pre>{formatJson(version.value)}</pre>
              </details>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** Deletion asks first: the item and its versions are gone for good. */
function DeleteItem(props: ItemAddress) {
  const { api } = useConsole();
  const query = { namespace: props.namespace.join("."), key: props.itemKey };
  return (
    <div class="controls">
      <ConfirmedButton
        label="Delete item…"
        title={`Delete item ${props.itemKey}?`}
        confirmLabel="Delete the item"
        run={() => api.call((client) => client.DELETE("/v1/memory/items", { params: { query } }))}
        onDone={() => {
          window.location.hash = memoryHref(props.namespace);
        }}
      >
        <p>
          The item and its versions are gone for good: sessions' memory tools no longer find it, and writing the key again starts it over at
          version 1.
        </p>
      </ConfirmedButton>
    </div>
  );
}
