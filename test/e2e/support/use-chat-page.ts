/**
 * A `useChat` page (React and `@ai-sdk/react`, unchanged), bundled for Chromium by
 * `serveUseChatPage`: it sends what is typed, shows text and tool parts, and approves a call.
 * Its settings come from the URL: `?api=…&token=…&chat=…`.
 */
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from "ai";
import { createElement as h, useState } from "react";
import { createRoot } from "react-dom/client";

const query = new URLSearchParams(location.search);

function Page() {
  const [draft, setDraft] = useState("");
  const { messages, sendMessage, addToolApprovalResponse, status, error } = useChat({
    id: query.get("chat") ?? "chat",
    transport: new DefaultChatTransport({ api: query.get("api") ?? "", headers: { Authorization: `Bearer ${query.get("token") ?? ""}` } }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  return h(
    "main",
    { "data-status": status },
    messages.map((message) =>
      h(
        "div",
        { key: message.id, className: message.role },
        message.parts.map((part, i) => {
          if (part.type === "text") return h("p", { key: i, className: "text" }, part.text);
          if (part.type !== "dynamic-tool") return null;
          if (part.state === "approval-requested") {
            return h("button", { key: i, className: "approve", onClick: () => void addToolApprovalResponse({ id: part.approval.id, approved: true }) }, `Approve ${part.toolName}`);
          }
          return h("p", { key: i, className: "tool" }, `${part.toolName}: ${part.state}`);
        }),
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

createRoot(document.getElementById("root")!).render(h(Page));
