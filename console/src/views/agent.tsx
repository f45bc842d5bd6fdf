/**
 * One agent: its versions, two of them compared (the pair is in the address), its aliases, a
 * session started from a version, its endpoints in each protocol, and its archival. Changing the agent is offered to callers
 * with agents:write (or tenant:admin), starting a session to those with sessions:write; the
 * platform judges every request either way.
 */
import { useRef, useState } from "preact/hooks";
import { isNotFound } from "../api";
import { useConsole } from "../context";
import { formatNumber } from "../format";
import { unconditional, usePoll } from "../hooks";
import { routeHref, type VersionPair } from "../route";
import type { Agent, AgentVersion } from "../types";
import { AgentAliases } from "./agent-aliases";
import { AgentCanaries } from "./agent-canaries";
import { AgentCompare } from "./agent-compare";
import { AgentEndpoints } from "./agent-endpoints";
import { StartSession } from "./agent-start";
import { AliasList } from "./agents";
import { Ago, ConfirmedButton, ErrorNote, Loading, Page } from "./common";
import { namesByVersion } from "./version-select";

const AGENT_POLL_MS = 10_000;
/** Versions shown at first, and added by each "More versions". */
const VERSION_PAGE = 20;

export function AgentPage(props: { id: string } & VersionPair) {
  const { api, me } = useConsole();
  const { id } = props;
  const agent = usePoll<Agent>(
    `agent|${id}`,
    () => unconditional(api.call((client) => client.GET("/v1/agents/{agent_id}", { params: { path: { agent_id: id } } }))),
    AGENT_POLL_MS,
  );
  const back = (
    <p>
      <a href={routeHref({ view: "agents", name: null, includeArchived: false, cursor: null })}>Back to the agents</a>
    </p>
  );
  if (!me.powers.read) {
    return (
      <Page title="Agent">
        <ErrorNote message="Reading agents needs the scope sessions:read." />
      </Page>
    );
  }
  const data = agent.data;
  if (!data && agent.loading)
    return (
      <Page title="Agent">
        <Loading what="the agent" />
      </Page>
    );
  if (!data) {
    return (
      <Page title="Agent">
        {isNotFound(agent.failure) ? (
          <ErrorNote message={`No agent ${id} in tenant ${me.tenant.tenant_id}.`} />
        ) : (
          <ErrorNote message={agent.error ?? "The agent could not be read."} retry={agent.refresh} />
        )}
        {back}
      </Page>
    );
  }

  const latest = data.version;
  const to = props.to ?? latest;
  const from = props.from ?? Math.max(1, to - 1);
  const canChange = me.powers.agentsWrite && !data.archived;
  return (
    <Page
      title={`Agent ${data.name}`}
      subtitle={
        <>
          {data.archived ? <span class="status status-cancelled">archived</span> : <span class="status status-done">live</span>} ·{" "}
          <code>{data.id}</code> · version {formatNumber(latest)} · created by {data.created_by} <Ago iso={data.created_at} />
          {data.description && <> · {data.description}</>}
        </>
      }
      actions={me.powers.agentsWrite && !data.archived && <Archive agent={data} onChanged={agent.refresh} />}
    >
      {agent.error && (
        <p class="stale" role="status">
          Could not refresh: {agent.error}
        </p>
      )}
      {data.archived && (
        <p class="notice" role="status">
          This agent is archived: it starts no new sessions and can no longer be changed. Its versions stay readable.
        </p>
      )}
      <div class="agent-grid">
        <div class="agent-main">
          <AgentCompare agent={data} from={from} to={to} />
          <VersionList agent={data} to={to} />
        </div>
        <div class="agent-side">
          <AgentAliases agent={data} canChange={canChange} suggested={to} onChanged={agent.refresh} />
          <AgentCanaries agent={data} canChange={canChange} onChanged={agent.refresh} />
          {me.powers.write && !data.archived && <StartSession agent={data} suggested={to} />}
          {!data.archived && <AgentEndpoints agent={data} />}
        </div>
      </div>
      {back}
    </Page>
  );
}

/** The versions, newest first, each with its author, its time, the aliases naming it and a link comparing it with the one before. */
function VersionList(props: { agent: Agent; to: number }) {
  const { api } = useConsole();
  const { agent } = props;
  const [pages, setPages] = useState(1);
  const versions = usePoll<{ data: AgentVersion[]; more: boolean }>(
    // A new latest version starts the list over.
    `agent-versions|${agent.id}|${agent.version}|${pages}`,
    () =>
      unconditional(
        (async () => {
          const data: AgentVersion[] = [];
          let cursor: string | null = null;
          for (let page = 0; page < pages; page++) {
            const query: { limit: number; cursor?: string } = { limit: VERSION_PAGE, ...(cursor ? { cursor } : {}) };
            const answer = await api.call((client) =>
              client.GET("/v1/agents/{agent_id}/versions", { params: { path: { agent_id: agent.id }, query } }),
            );
            data.push(...answer.data);
            cursor = answer.next_cursor;
            if (!cursor) break;
          }
          return { data, more: cursor !== null };
        })(),
      ),
    null,
  );
  // While more pages are read, the rows already shown stay, and so does the focus on "More versions".
  const shownRef = useRef<{ key: string; list: { data: AgentVersion[]; more: boolean } } | null>(null);
  if (versions.data) shownRef.current = { key: `${agent.id}|${agent.version}`, list: versions.data };
  const shown = versions.data ?? (shownRef.current?.key === `${agent.id}|${agent.version}` ? shownRef.current.list : null);
  const named = namesByVersion(agent.aliases);
  return (
    <section class="panel agent-versions" aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      {versions.error && !versions.data ? (
        <ErrorNote message={versions.error} retry={versions.refresh} />
      ) : !shown ? (
        <Loading what="the versions" />
      ) : (
        <table class="versions">
          <caption class="visually-hidden">Versions of {agent.name}, newest first</caption>
          <thead>
            <tr>
              <th scope="col" class="num">
                Version
              </th>
              <th scope="col">Made</th>
              <th scope="col">Aliases</th>
              <th scope="col">
                <span class="visually-hidden">Compare</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.data.map((version) => (
              <tr key={version.version} data-version={version.version} aria-current={version.version === props.to ? "true" : undefined}>
                <th scope="row" class="num">
                  {version.version}
                </th>
                <td>
                  {version.created_by} <Ago iso={version.created_at} />
                </td>
                <td>{named.get(version.version)?.map((name) => <code key={name}>{name} </code>) ?? <span class="muted">—</span>}</td>
                <td>
                  {version.version > 1 && (
                    <a href={routeHref({ view: "agent", id: agent.id, from: version.version - 1, to: version.version })}>
                      Changes<span class="visually-hidden"> in version {version.version}</span>
                    </a>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {shown?.more && (
        <button type="button" onClick={() => setPages((n) => n + 1)}>
          {versions.loading ? "Reading more versions…" : "More versions"}
        </button>
      )}
    </section>
  );
}

/** Archival asks first: it cannot be undone. */
function Archive(props: { agent: Agent; onChanged(): void }) {
  const { api } = useConsole();
  return (
    <div class="controls">
      <ConfirmedButton
        label="Archive agent…"
        title={`Archive agent ${props.agent.name}?`}
        confirmLabel="Archive the agent"
        run={() => api.call((client) => client.DELETE("/v1/agents/{agent_id}", { params: { path: { agent_id: props.agent.id } } }))}
        onDone={props.onChanged}
      >
        <p>
          New sessions from it are refused, whichever version or alias they name, and schedules that name it fail at their next firing.
          Sessions already running go on, its versions stay readable, and its name is free for a new agent. An archived agent cannot be
          restored.
        </p>
        {Object.keys(props.agent.aliases).length > 0 && (
          <div>
            Its aliases, which then name a version no session can start from: <AliasList aliases={props.agent.aliases} />
          </div>
        )}
      </ConfirmedButton>
    </div>
  );
}
