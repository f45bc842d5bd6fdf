/**
 * The tenant's agents: each with its latest version, its aliases and whether it is archived,
 * newest first, paged like the sessions, with a filter by name and one that adds archived agents.
 */
import { useState } from "preact/hooks";
import { useConsole } from "../context";
import { formatNumber } from "../format";
import { unconditional, usePoll } from "../hooks";
import { type AgentFilter, routeHref } from "../route";
import type { Agent } from "../types";
import { Ago, Empty, ErrorNote, Loading, Page } from "./common";

/** Agents change when someone changes them, not as runs go: read again less often than sessions. */
const AGENTS_POLL_MS = 10_000;
const PAGE_SIZE = 25;

export function AgentsPage(props: { filter: AgentFilter }) {
  const { api, me } = useConsole();
  const { filter } = props;
  const [earlier, setEarlier] = useState<string[]>([]);
  const query = {
    limit: PAGE_SIZE,
    ...(filter.name ? { name: filter.name } : {}),
    ...(filter.includeArchived ? { include_archived: "true" as const } : {}),
    ...(filter.cursor ? { cursor: filter.cursor } : {}),
  };
  const page = usePoll<{ data: Agent[]; next_cursor: string | null }>(
    `agents|${JSON.stringify(query)}`,
    () => unconditional(api.call((client) => client.GET("/v1/agents", { params: { query } }))),
    AGENTS_POLL_MS,
  );
  if (!me.powers.read) {
    return (
      <Page title="Agents">
        <ErrorNote message="Reading agents needs the scope sessions:read." />
      </Page>
    );
  }
  const go = (next: AgentFilter) => routeHref({ view: "agents", ...next });
  const rows = page.data?.data ?? [];
  return (
    <Page
      title="Agents"
      subtitle={
        <>
          Tenant <strong>{me.tenant.tenant_id}</strong> · named, versioned session configurations
          {!me.powers.agentsWrite && " · read only (changing agents needs agents:write)"}
        </>
      }
    >
      <div class="toolbar">
        <AgentFilterForm filter={filter} />
      </div>
      {page.error && page.data && (
        <p class="stale" role="status">
          Could not refresh: {page.error}
        </p>
      )}
      {page.loading && !page.data ? (
        <Loading what="agents" />
      ) : page.error && !page.data ? (
        <ErrorNote message={page.error} retry={page.refresh} />
      ) : rows.length === 0 ? (
        <Empty>
          <p>{emptyText(filter, earlier.length > 0 || filter.cursor !== null)}</p>
        </Empty>
      ) : (
        <AgentTable rows={rows} />
      )}
      <nav class="pager" aria-label="Pages">
        {filter.cursor !== null && (
          <a href={go({ ...filter, cursor: earlier.at(-1) || null })} onClick={() => setEarlier((list) => list.slice(0, -1))}>
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
    </Page>
  );
}

function emptyText(filter: AgentFilter, paged: boolean): string {
  if (paged) return "No more agents.";
  if (filter.name) return `No ${filter.includeArchived ? "" : "live "}agent named ${filter.name}.`;
  return "No agents yet. An agent appears here once a backend defines one (POST /v1/agents).";
}

function AgentTable(props: { rows: Agent[] }) {
  return (
    <table class="agents responsive">
      <caption class="visually-hidden">Agents, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Agent</th>
          <th scope="col" class="num">
            Latest version
          </th>
          <th scope="col">Aliases</th>
          <th scope="col">State</th>
          <th scope="col">Changed</th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((agent) => (
          <tr key={agent.id} data-agent={agent.id}>
            <th scope="row" data-label="Agent">
              <a href={routeHref({ view: "agent", id: agent.id, from: null, to: null })}>{agent.name}</a>
              <div class="muted">
                <code>{agent.id}</code>
                {agent.description && <> · {agent.description}</>}
              </div>
            </th>
            <td data-label="Latest version" class="num">
              {formatNumber(agent.version)}
            </td>
            <td data-label="Aliases">
              <AliasList aliases={agent.aliases} />
            </td>
            <td data-label="State">
              {agent.archived ? <span class="status status-cancelled">archived</span> : <span class="status status-done">live</span>}
            </td>
            <td data-label="Changed">
              <Ago iso={agent.updated_at} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** `production → 3`, in alias order; a dash when there is none. */
export function AliasList(props: { aliases: Record<string, number> }) {
  const names = Object.keys(props.aliases).sort();
  if (names.length === 0) return <span class="muted">—</span>;
  return (
    <ul class="aliases">
      {names.map((name) => (
        <li key={name}>
          <code>{name}</code> → {props.aliases[name]}
        </li>
      ))}
    </ul>
  );
}

function AgentFilterForm(props: { filter: AgentFilter }) {
  const [name, setName] = useState(props.filter.name ?? "");
  const submit = (event: Event) => {
    event.preventDefault();
    window.location.hash = routeHref({ view: "agents", ...props.filter, name: name.trim() || null, cursor: null });
  };
  return (
    <form class="inline" role="search" onSubmit={submit}>
      <label for="agent-name">Name</label>
      <input
        id="agent-name"
        type="search"
        value={name}
        placeholder="exact name, or empty for all"
        onInput={(event) => setName((event.target as HTMLInputElement).value)}
      />
      <label class="check">
        <input
          type="checkbox"
          checked={props.filter.includeArchived}
          onChange={(event) => {
            window.location.hash = routeHref({
              view: "agents",
              ...props.filter,
              includeArchived: (event.target as HTMLInputElement).checked,
              cursor: null,
            });
          }}
        />
        Archived too
      </label>
      <button type="submit">Filter</button>
    </form>
  );
}
