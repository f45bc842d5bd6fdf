/**
 * An agent's endpoints, one per protocol (REST, the AI SDK chat transport, MCP, A2A, AG-UI), each
 * with its routes and a snippet to copy; the credential stays `$TOKEN` (console/src/endpoints.ts).
 */
import { useState } from "preact/hooks";
import { useConsole } from "../context";
import { agentEndpoints, type Endpoint } from "../endpoints";
import type { Agent } from "../types";

export function AgentEndpoints(props: { agent: Agent }) {
  const { baseUrl } = useConsole();
  const endpoints = agentEndpoints(baseUrl, props.agent);
  return (
    <section class="panel agent-endpoints" aria-labelledby="endpoints-title">
      <h2 id="endpoints-title">Endpoints</h2>
      <p class="muted">
        One credential and one session per caller behind each: a chat id, an A2A context and an AG-UI thread of the same value reach the
        same session.
      </p>
      {endpoints.map((endpoint) => (
        <EndpointEntry key={endpoint.protocol} endpoint={endpoint} />
      ))}
    </section>
  );
}

function EndpointEntry(props: { endpoint: Endpoint }) {
  const { endpoint } = props;
  const [copied, setCopied] = useState(false);
  const id = `endpoint-${endpoint.protocol.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}`;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(endpoint.snippet);
      setCopied(true);
    } catch {
      // No clipboard (an insecure origin, a refused permission): the snippet stays selectable.
      setCopied(false);
    }
  };
  return (
    <div class="endpoint" data-protocol={endpoint.protocol} aria-labelledby={`${id}-title`} role="group">
      <h3 id={`${id}-title`}>{endpoint.protocol}</h3>
      <p>{endpoint.purpose}</p>
      <ul class="endpoint-routes">
        {endpoint.routes.map((route) => (
          <li key={route}>
            <code>{route}</code>
          </li>
        ))}
      </ul>
      <pre class={`snippet snippet-${endpoint.language}`} id={`${id}-snippet`}>
        {endpoint.snippet}
      </pre>
      <button type="button" onClick={copy} aria-describedby={`${id}-title`}>
        {copied ? "Copied" : "Copy snippet"}
      </button>
    </div>
  );
}
