/**
 * A session's sub-agents as a tree: its children (sessions its agent tools started) and theirs,
 * as deep as the platform lets agents call agents, each linked to its own page with its status
 * and agent. Read from `GET /v1/sessions?parent_session_id=`, again while the session is live.
 */
import { NO_STORE } from "../api";
import { useConsole } from "../context";
import { unconditional, usePoll } from "../hooks";
import { routeHref } from "../route";
import type { SessionSummary } from "../types";
import { AgentLink, StatusBadge } from "./common";

/** The platform's default `max_agent_depth`: a tree is read no deeper. */
const MAX_DEPTH = 3;
const POLL_MS = 3_000;

interface Node {
  session: SessionSummary;
  children: Node[];
}

export function SubagentTree(props: { sessionId: string; live: boolean }) {
  const { api } = useConsole();
  const childrenOf = async (id: string, depth: number): Promise<Node[]> => {
    if (depth > MAX_DEPTH) return [];
    const page = await api.call((client) =>
      client.GET("/v1/sessions", { params: { query: { parent_session_id: id, limit: 200 } }, ...NO_STORE }),
    );
    const ordered = [...page.data].sort((a, b) => a.created_at.localeCompare(b.created_at));
    return Promise.all(ordered.map(async (session) => ({ session, children: await childrenOf(session.id, depth + 1) })));
  };
  const tree = usePoll<Node[]>(
    `subagents|${props.sessionId}`,
    () => unconditional(childrenOf(props.sessionId, 1)),
    props.live ? POLL_MS : null,
  );
  if (!tree.data || tree.data.length === 0) return null;
  return (
    <section class="subagents" aria-labelledby="subagents-title">
      <h2 id="subagents-title">Sub-agents</h2>
      <Branch nodes={tree.data} />
    </section>
  );
}

function Branch(props: { nodes: Node[] }) {
  return (
    <ul class="subagent-tree">
      {props.nodes.map(({ session, children }) => (
        <li key={session.id}>
          <a href={routeHref({ view: "session", id: session.id })}>{session.id}</a> <StatusBadge status={session.status} />
          {session.agent && (
            <>
              {" "}
              <AgentLink pin={session.agent} />
            </>
          )}
          {children.length > 0 && <Branch nodes={children} />}
        </li>
      ))}
    </ul>
  );
}
