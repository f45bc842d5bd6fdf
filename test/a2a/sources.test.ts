/** The sources an A2A task's answer cites: in the answer artifact's metadata, each once, read from the run's messages. */
import { describe, expect, it } from "vitest";
import { readRun } from "../../src/a2a/reads";
import { answerArtifacts } from "../../src/a2a/tasks";
import type { SessionClient } from "../../src/sessions/client";
import type { Message } from "../../src/session-config/types";

const page = (url: string, title: string) => ({ type: "web_search_result_location", url, title, cited_text: "…", encrypted_index: "x" });
const message = (seq: number, role: Message["role"], content: Message["content"]) => ({ seq, role, content }) as Message;

const MESSAGES: Message[] = [
  message(1, "user", [{ type: "text", text: "what is new?" }]),
  message(2, "assistant", [
    { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "news" } },
    { type: "text", text: "A", citations: [page("https://a.example/", "A page")] },
  ]),
  message(3, "assistant", [
    { type: "text", text: "B", citations: [page("https://a.example/", "A page"), page("https://b.example/", "B page")] },
  ]),
];
const client = { listMessages: async () => ({ data: MESSAGES, next_cursor: null }) } as unknown as SessionClient;

describe("A2A answer sources", () => {
  it("lists the pages a run's answers cite in the answer artifact's metadata, each once", async () => {
    const run = (await readRun(client, 1))!;
    const [answer] = answerArtifacts(run.answer, null, run.citing);
    expect(answer!.parts).toHaveLength(1);
    expect(answer!.metadata).toEqual({
      sources: [
        { kind: "url", url: "https://a.example/", title: "A page" },
        { kind: "url", url: "https://b.example/", title: "B page" },
      ],
    });
  });

  it("leaves the metadata out when nothing is cited", () => {
    expect(answerArtifacts("plain", null)[0]!.metadata).toBeUndefined();
  });
});
