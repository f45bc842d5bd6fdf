/**
 * A tenant's sessions: status filters with counts, the creator filter, paging, and the bulk
 * cancel for admins. The caller's own list polls with `If-None-Match`, so an unchanged page
 * costs a 304; a platform admin's view of another tenant reads the admin route.
 */
import { useEffect, useState } from "preact/hooks";
import { NO_STORE } from "../api";
import { useConsole } from "../context";
import { formatNumber, statusLabel, totalTokens } from "../format";
import { END_USER_PREFIX, endUserOf } from "../key-names";
import { unconditional, usePoll } from "../hooks";
import { metadataSearchText, parseMetadataSearch, routeHref, type SessionFilter } from "../route";
import { ACTIVE_STATUSES, isFinal, SESSION_STATUSES, type SessionSummary, type SessionStatus } from "../types";
import { BulkCancel } from "./bulk-cancel";
import { AgentLink, Ago, Creator, Empty, ErrorNote, Loading, StatusBadge } from "./common";

/** How often a list is read again; a 304 is a few hundred bytes. */
export const LIST_POLL_MS = 2_000;
export const PAGE_SIZE = 25;

interface Page {
  data: SessionSummary[];
  next_cursor: string | null;
}

export interface SessionListProps {
  /** The tenant whose sessions these are; `own` reads `GET /v1/sessions`. */
  tenantId: string;
  own: boolean;
  filter: SessionFilter;
  counts: Partial<Record<SessionStatus, number>> | null;
  /** The address of this list with another filter. */
  hrefFor(filter: SessionFilter): string;
  /** Called after a bulk cancel, so the counts are read again. */
  onChanged?(): void;
}

export function SessionList(props: SessionListProps) {
  const { api, me } = useConsole();
  const { filter } = props;
  const [earlier, setEarlier] = useState<string[]>([]);
  const query = {
    limit: PAGE_SIZE,
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.createdBy ? { created_by: filter.createdBy } : {}),
    ...(filter.metadata && props.own ? { metadata: filter.metadata } : {}),
    ...(filter.cursor ? { cursor: filter.cursor } : {}),
  };
  const key = `${props.own ? "own" : props.tenantId}|${JSON.stringify(query)}`;
  const page = usePoll<Page>(
    key,
    (etag) =>
      props.own
        ? api.conditional(etag, (client, ifNoneMatch) =>
            client.GET("/v1/sessions", { params: { query, header: ifNoneMatch ? { "if-none-match": ifNoneMatch } : {} }, ...NO_STORE }),
          )
        : unconditional(
            api.call((client) =>
              client.GET("/v1/admin/tenants/{tenant_id}/sessions", { params: { path: { tenant_id: props.tenantId }, query } }),
            ),
          ),
    LIST_POLL_MS,
  );

  // A page that changed means statuses moved: the counts beside the filters follow.
  const onChanged = props.onChanged;
  useEffect(() => {
    if (page.data) onChanged?.();
  }, [page.data, onChanged]);

  const go = (next: SessionFilter) => props.hrefFor(next);
  const total = props.counts ? Object.values(props.counts).reduce((sum, n) => sum + (n ?? 0), 0) : null;
  const canCancel = me.powers.tenantAdmin && (filter.status === null || ACTIVE_STATUSES.includes(filter.status));

  return (
    <div class="session-list">
      <nav class="filters" aria-label="Filter by status">
        <a href={go({ ...filter, status: null, cursor: null })} aria-current={filter.status === null ? "true" : undefined}>
          all{total !== null && <span class="count">{formatNumber(total)}</span>}
        </a>
        {SESSION_STATUSES.map((status) => (
          <a
            key={status}
            href={go({ ...filter, status, cursor: null })}
            aria-current={filter.status === status ? "true" : undefined}
            class={`filter-${status}`}
          >
            {statusLabel(status)}
            {props.counts && <span class="count">{formatNumber(props.counts[status] ?? 0)}</span>}
          </a>
        ))}
      </nav>

      <div class="toolbar">
        {props.own && <SessionSearch key={metadataSearchText(filter.metadata)} filter={filter} hrefFor={props.hrefFor} />}
        {me.powers.tenantAdmin && <CreatorFilter key={filter.createdBy ?? ""} filter={filter} hrefFor={props.hrefFor} />}
        {canCancel && (
          <BulkCancel
            tenantId={props.tenantId}
            status={filter.status}
            createdBy={filter.createdBy}
            onDone={() => {
              page.refresh();
              props.onChanged?.();
            }}
          />
        )}
      </div>

      {page.error && page.data && (
        <p class="stale" role="status">
          Could not refresh: {page.error}
        </p>
      )}
      {page.loading && !page.data ? (
        <Loading what="sessions" />
      ) : page.error && !page.data ? (
        <ErrorNote message={page.error} retry={page.refresh} />
      ) : page.data && page.data.data.length === 0 ? (
        <Empty>
          <p>{emptyText(filter, earlier.length > 0 || filter.cursor !== null)}</p>
        </Empty>
      ) : page.data ? (
        <SessionTable
          rows={page.data.data}
          openable={props.own || props.tenantId === me.tenant.tenant_id}
          creatorHref={me.powers.tenantAdmin ? (createdBy) => go({ ...filter, createdBy, cursor: null }) : undefined}
        />
      ) : null}

      <nav class="pager" aria-label="Pages">
        {filter.cursor !== null && (
          <a href={go({ ...filter, cursor: earlier.at(-1) ?? null })} onClick={() => setEarlier((list) => list.slice(0, -1))}>
            ← Newer
          </a>
        )}
        {filter.cursor !== null && earlier.length > 1 && (
          <a href={go({ ...filter, cursor: null })} onClick={() => setEarlier([])}>
            First page
          </a>
        )}
        {page.data?.next_cursor && (
          <a href={go({ ...filter, cursor: page.data.next_cursor })} onClick={() => setEarlier((list) => [...list, filter.cursor ?? ""])}>
            Older →
          </a>
        )}
      </nav>
    </div>
  );
}

function emptyText(filter: SessionFilter, paged: boolean): string {
  if (paged) return "No more sessions.";
  const endUser = filter.createdBy ? endUserOf(filter.createdBy) : null;
  const who = `${filter.createdBy ? ` created by ${endUser !== null ? `end user ${endUser}` : filter.createdBy}` : ""}${filter.metadata ? ` with ${metadataSearchText(filter.metadata)}` : ""}`;
  if (filter.status) return `No ${statusLabel(filter.status)} sessions${who}.`;
  return `No sessions${who} yet. Sessions appear here as soon as a backend creates them (POST /v1/sessions).`;
}

/** `creatorHref`: where an end user's name leads (the list filtered by that end user), for those who may filter. */
function SessionTable(props: { rows: SessionSummary[]; openable: boolean; creatorHref?: ((createdBy: string) => string) | undefined }) {
  return (
    <table class="sessions responsive">
      <caption class="visually-hidden">Sessions, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Session</th>
          <th scope="col">Status</th>
          <th scope="col">Created by</th>
          <th scope="col">Agent</th>
          <th scope="col" class="num">
            Steps
          </th>
          <th scope="col" class="num">
            Tokens
          </th>
          <th scope="col">Created</th>
          <th scope="col">Updated</th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr key={row.id} data-session={row.id}>
            <th scope="row" data-label="Session">
              {props.openable ? (
                <a class="session-name" href={routeHref({ view: "session", id: row.id })}>
                  <SessionName row={row} />
                </a>
              ) : (
                <span class="session-name">
                  <SessionName row={row} />
                </span>
              )}
            </th>
            <td data-label="Status">
              <StatusBadge status={row.status} />
              {isFinal(row.status) && row.stop_reason && row.stop_reason !== "cancelled" && <span class="muted"> {row.stop_reason}</span>}
            </td>
            <td data-label="Created by">
              <Creator subject={row.created_by} href={props.creatorHref?.(row.created_by)} />
            </td>
            <td data-label="Agent">{row.agent ? <AgentLink pin={row.agent} openable={props.openable} /> : <span class="muted">—</span>}</td>
            <td data-label="Steps" class="num">
              {formatNumber(row.usage.steps)}
            </td>
            <td data-label="Tokens" class="num">
              {formatNumber(totalTokens(row.usage))}
            </td>
            <td data-label="Created">
              <Ago iso={row.created_at} />
            </td>
            <td data-label="Updated">
              <Ago iso={row.updated_at} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A session as a list names it: its title (its first input) over its id. */
function SessionName(props: { row: SessionSummary }) {
  return (
    <>
      {props.row.title ? <span class="title">{props.row.title}</span> : <span class="title muted">No input yet</span>}
      <code class="id">{props.row.id}</code>
    </>
  );
}

/**
 * One box for both searches: a session id opens that session; `key=value` words list the sessions
 * whose metadata holds them all (`?metadata[key]=value`).
 */
function SessionSearch(props: { filter: SessionFilter; hrefFor(filter: SessionFilter): string }) {
  const [value, setValue] = useState(metadataSearchText(props.filter.metadata));
  const [problem, setProblem] = useState<string | null>(null);
  const submit = (event: Event) => {
    event.preventDefault();
    const text = value.trim();
    setProblem(null);
    if (/^ses_[A-Za-z0-9_-]+$/.test(text)) {
      window.location.hash = routeHref({ view: "session", id: text });
      return;
    }
    const metadata = text === "" ? null : parseMetadataSearch(text);
    if (text !== "" && metadata === null) {
      setProblem("Type a session id (ses_…) or metadata as key=value words.");
      return;
    }
    window.location.hash = props.hrefFor({ ...props.filter, metadata, cursor: null });
  };
  return (
    <form class="inline" role="search" onSubmit={submit}>
      <label for="session-search">Find</label>
      <input
        id="session-search"
        type="search"
        value={value}
        placeholder="ses_… or ticket=T-1"
        aria-describedby="session-search-help"
        aria-invalid={problem ? "true" : undefined}
        onInput={(event) => setValue((event.target as HTMLInputElement).value)}
      />
      <button type="submit">Find</button>
      <span id="session-search-help" class={problem ? "form-error" : "visually-hidden"} role={problem ? "alert" : undefined}>
        {problem ?? "A session id opens it; key=value words list the sessions with that metadata."}
      </span>
    </form>
  );
}

/** A subject, or an end user's subject (the filter then asks for `end_user:<subject>`). */
function CreatorFilter(props: { filter: SessionFilter; hrefFor(filter: SessionFilter): string }) {
  const current = props.filter.createdBy ?? "";
  const [endUser, setEndUser] = useState(endUserOf(current) !== null);
  const [value, setValue] = useState(endUserOf(current) ?? current);
  const submit = (event: Event) => {
    event.preventDefault();
    const subject = value.trim();
    const createdBy = subject === "" ? null : endUser ? `${END_USER_PREFIX}${subject}` : subject;
    window.location.hash = props.hrefFor({ ...props.filter, createdBy, cursor: null });
  };
  return (
    <form class="inline" role="search" onSubmit={submit}>
      <label for="created-by">Created by</label>
      <select
        id="created-by-kind"
        aria-label="Kind of creator"
        value={endUser ? "end_user" : "subject"}
        onChange={(event) => setEndUser((event.target as HTMLSelectElement).value === "end_user")}
      >
        <option value="subject">subject</option>
        <option value="end_user">end user</option>
      </select>
      <input
        id="created-by"
        type="search"
        value={value}
        placeholder={endUser ? "the end user's subject" : "any subject"}
        onInput={(event) => setValue((event.target as HTMLInputElement).value)}
      />
      <button type="submit">Filter</button>
    </form>
  );
}
