/** What a session was set up with: its first input (title), metadata, system prompt and tools. */
import type { Session } from "../types";
import { Creator } from "./common";

type Tool = Session["tools"][number];

/** A system prompt longer than this opens folded: the conversation is what the page is for. */
const LONG_SYSTEM_CHARS = 400;

export function SessionSetup(props: { session: Session }) {
  const { session } = props;
  const metadata = Object.entries(session.metadata ?? {});
  return (
    <section class="panel session-setup" aria-labelledby="setup-title">
      <h2 id="setup-title">Setup</h2>
      <dl class="facts">
        <dt>Title</dt>
        <dd>{session.title ?? <span class="muted">no input yet</span>}</dd>
        <dt>Created by</dt>
        <dd>
          <Creator subject={session.created_by} />
        </dd>
        <dt>Metadata</dt>
        <dd>
          {metadata.length === 0 ? (
            <span class="muted">none</span>
          ) : (
            <ul class="metadata">
              {metadata.map(([key, value]) => (
                <li key={key}>
                  <code>{key}</code> = <code>{value}</code>
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt>System prompt</dt>
        <dd>
          {session.system === null ? (
            <span class="muted">none</span>
          ) : session.system.length > LONG_SYSTEM_CHARS ? (
            <details>
              <summary>{session.system.length.toLocaleString("en")} characters</summary>
              <pre class="system">{session.system}</pre>
            </details>
          ) : (
            <pre class="system">{session.system}</pre>
          )}
        </dd>
        <dt>Tools</dt>
        <dd>
          {session.tools.length === 0 ? (
            <span class="muted">none</span>
          ) : (
            <ul class="tools">
              {session.tools.map((tool) => (
                <li key={tool.name}>
                  <code>{tool.name}</code> <span class="muted">{tool.type}</span>
                  {"requires_approval" in tool && tool.requires_approval && <span class="tag">needs approval</span>}
                  {toolDetail(tool) && <span class="detail">{toolDetail(tool)}</span>}
                </li>
              ))}
            </ul>
          )}
        </dd>
      </dl>
    </section>
  );
}

/** The line that tells a tool apart: what it does, or where it goes. */
function toolDetail(tool: Tool): string | null {
  // A remote agent: what it does, and whose card it is.
  if (tool.type === "a2a") return `${tool.description} (${tool.agent_card_url})`;
  if ("description" in tool && typeof tool.description === "string") return tool.description;
  if ("url" in tool && typeof tool.url === "string") return tool.url;
  if ("agent" in tool && typeof tool.agent === "string") return tool.agent;
  return null;
}
