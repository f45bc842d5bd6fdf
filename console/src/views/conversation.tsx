/**
 * The conversation: messages as the stream delivers them, older ones on request, and the text
 * the model is writing right now. Every piece of content is rendered as text, never as markup.
 */
import { useConsole } from "../context";
import { citedSources } from "../sources";
import { formatJson } from "../format";
import { useAction } from "../hooks";
import { earlierPage } from "../live/session-state";
import type { ContentBlock, Message } from "../types";
import { Ago, Empty, ErrorNote, Loading } from "./common";

export function Conversation(props: {
  sessionId: string;
  messages: Message[];
  drafts: string[];
  hasEarlier: boolean;
  earlierPageSize: number;
  connected: boolean;
  onEarlier(messages: Message[]): void;
}) {
  const { api } = useConsole();
  const earlier = useAction();
  const oldest = props.messages[0]?.seq ?? 1;
  const page = earlierPage(oldest, props.earlierPageSize);
  const writing = props.drafts.filter((text) => text !== undefined && text !== "");

  const loadEarlier = () =>
    earlier.run(async () => {
      if (!page) return;
      const answer = await api.call((client) =>
        client.GET("/v1/sessions/{id}/messages", {
          params: { path: { id: props.sessionId }, query: { after: page.after, limit: page.limit } },
        }),
      );
      props.onEarlier(answer.data);
    });

  return (
    <section class="conversation" aria-labelledby="conversation-title">
      <h2 id="conversation-title">Conversation</h2>
      {props.hasEarlier && page && (
        <button type="button" class="link" disabled={earlier.pending} onClick={() => void loadEarlier()}>
          {earlier.pending ? "Loading earlier messages…" : "Show earlier messages"}
        </button>
      )}
      {earlier.error && <ErrorNote message={earlier.error} retry={() => void loadEarlier()} />}
      {props.messages.length === 0 && writing.length === 0 ? (
        props.connected ? (
          <Empty>
            <p>No messages yet. The first one appears here when a run starts.</p>
          </Empty>
        ) : (
          <Loading what="the conversation" />
        )
      ) : (
        <ol class="messages">
          {props.messages.map((message) => (
            <li key={message.seq} class={`message message-${message.role}`} data-seq={message.seq}>
              <div class="message-head">
                <span class="role">{message.role}</span> <Ago iso={message.created_at} />
              </div>
              {message.content.map((block, index) => (
                <Block key={index} block={block} />
              ))}
              <Sources content={message.content} />
            </li>
          ))}
        </ol>
      )}
      {writing.length > 0 && (
        <div class="message message-assistant draft" aria-live="polite" aria-busy="true">
          <div class="message-head">
            <span class="role">assistant</span> <span class="muted">writing…</span>
          </div>
          {writing.map((text, index) => (
            <p key={index} class="text">
              {text}
            </p>
          ))}
        </div>
      )}
    </section>
  );
}

function Block(props: { block: ContentBlock }) {
  const { block } = props;
  switch (block.type) {
    case "text":
      return <p class="text">{block.text}</p>;
    case "tool_use":
      return (
        <details class="block tool-use">
          <summary>
            calls <code>{block.name}</code>
          </summary>
          <pre>{formatJson(block.input)}</pre>
        </details>
      );
    case "tool_result":
      return (
        <details class={`block tool-result${block.is_error ? " is-error" : ""}`}>
          <summary>{block.is_error ? "tool error" : "tool result"}</summary>
          <pre>{block.content}</pre>
        </details>
      );
    case "server_tool_use":
      return (
        <details class="block tool-use provider-tool">
          <summary>
            the provider ran <code>{String(block.name)}</code>
          </summary>
          <pre>{formatJson(block.input)}</pre>
        </details>
      );
    default:
      return block.type.endsWith("_tool_result") ? (
        <details class="block tool-result provider-tool">
          <summary>
            <code>{block.type}</code>
          </summary>
          <pre>{formatJson(block)}</pre>
        </details>
      ) : (
        <pre class="block">{formatJson(block)}</pre>
      );
  }
}

/** The pages and documents the answer cites, under it, as a reader needs them to check it. */
function Sources(props: { content: ContentBlock[] }) {
  const sources = citedSources(props.content);
  if (sources.length === 0) return null;
  return (
    <div class="sources">
      <h3>Sources</h3>
      <ol>
        {sources.map((source, index) => (
          <li key={index}>
            {source.url ? (
              <a href={source.url} target="_blank" rel="noopener noreferrer nofollow">
                {source.title}
              </a>
            ) : (
              source.title
            )}
            {source.url && <span class="muted source-url"> {source.url}</span>}
          </li>
        ))}
      </ol>
    </div>
  );
}
