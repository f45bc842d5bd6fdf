/**
 * A `useChat` page (React and `@ai-sdk/react`, unchanged), bundled for Chromium by
 * `serveUseChatPage`: it sends what is typed, shows text and tool parts and the pages an answer
 * cites (its `source-url` parts, listed under it), and approves a call.
 * Opened (or reloaded), it first asks the chat's history route and hands the conversation to
 * `useChat({ messages })`. Its settings come from the URL: `?api=…&token=…&chat=…`.
 */
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from "ai";
import { createElement as h, useState } from "react";
import { createRoot } from "react-dom/client";

const query = new URLSearchParams(location.search);
const chatId = query.get("chat") ?? "chat";
const authorization = `Bearer ${query.get("token") ?? ""}`;

/** The chat so far, from `GET …/chat/{id}/messages`; a chat never used is 404, an empty one. */
async function history(): Promise<UIMessage[]> {
  const res = await fetch(`${query.get("api") ?? ""}/${encodeURIComponent(chatId)}/messages`, {
    headers: { Authorization: authorization },
  });
  if (res.status === 404) return [];
  if (!res.ok) throw new Error(`history: ${res.status}`);
  return ((await res.json()) as { messages: UIMessage[] }).messages;
}

/** The pages the answer cites, under it, as a reader needs them to check it; none, nothing. */
function sources(message: UIMessage) {
  const pages = message.parts.filter((part) => part.type === "source-url");
  if (pages.length === 0) return null;
  return h(
    "ol",
    { key: "sources", className: "sources" },
    pages.map((part) => h("li", { key: part.sourceId }, h("a", { href: part.url }, part.title ?? part.url))),
  );
}

function Page({ restored }: { restored: UIMessage[] }) {
  const [draft, setDraft] = useState("");
  const { messages, sendMessage, addToolApprovalResponse, status, error } = useChat({
    id: chatId,
    messages: restored,
    // A turn still under way after a reload is replayed whole and followed (`…/chat/{id}/stream`).
    resume: true,
    transport: new DefaultChatTransport({ api: query.get("api") ?? "", headers: { Authorization: authorization } }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  return h(
    "main",
    { "data-status": status },
    messages.map((message) =>
      h(
        "div",
        { key: message.id, className: message.role, "data-id": message.id },
        message.parts.map((part, i) => {
          if (part.type === "text") return h("p", { key: i, className: "text" }, part.text);
          if (part.type !== "dynamic-tool") return null;
          if (part.state === "approval-requested") {
            return h(
              "button",
              { key: i, className: "approve", onClick: () => void addToolApprovalResponse({ id: part.approval.id, approved: true }) },
              `Approve ${part.toolName}`,
            );
          }
          const approval = part.approval?.approved === undefined ? "" : part.approval.approved ? " (approved)" : " (denied)";
          return h("p", { key: i, className: "tool" }, `${part.toolName}: ${part.state}${approval}`);
        }),
        sources(message),
      ),
    ),
    error ? h("p", { role: "alert" }, error.message) : null,
    h(
      "form",
      {
        onSubmit: (event: { preventDefault(): void }) => {
          event.preventDefault();
          void sendMessage({ text: draft });
          setDraft("");
        },
      },
      h("input", { name: "draft", value: draft, onChange: (event: { target: { value: string } }) => setDraft(event.target.value) }),
    ),
  );
}

void history().then((restored) => createRoot(document.getElementById("root")!).render(h(Page, { restored })));
