/**
 * The mock model's marked behaviours, against the tool definitions the platform really offers
 * (the memory tools' descriptions name the session's namespaces; every agent tool takes `input`):
 * each marker calls the tool it names, once, then answers from its result; no marker, no change.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeBinary, PROJECT_ROOT } from "../e2e/support/environment";
import { type MockServer, startMockServer } from "../support/node/mock-server";
import { toolUsingFallback } from "../support/node/tool-using-model";

type Block = { type: string; id?: string; name?: string; input?: unknown; text?: string };
type Turn = { role: "user" | "assistant"; content: string | Block[] };
type Tool = { name: string; description?: string; input_schema: unknown };

const NAMESPACE = { type: "array", items: { type: "string" } };
/**
 * As tools/builtin/memory.ts words them for a grant of ["users","u_123"] (copied: the node
 * project cannot load the Worker's code); the e2e docs test runs the real ones.
 */
const MEMORY: Tool[] = [
  {
    name: "memory_search",
    description:
      "Searches long-term memory (kept across conversations) by words, best match first. " +
      'Searches every namespace you may read (["users","u_123"]) unless `namespace` names one of them or one below.',
    input_schema: { type: "object", properties: { query: { type: "string" }, namespace: NAMESPACE }, required: ["query"] },
  },
  {
    name: "memory_put",
    description:
      "Saves an item in long-term memory, where later conversations can find it; saving an existing key replaces its value. " +
      '`namespace` is ["users","u_123"] unless given (any of ["users","u_123"] or below).',
    input_schema: {
      type: "object",
      properties: { key: { type: "string" }, value: { type: "object" }, namespace: NAMESPACE },
      required: ["key", "value"],
    },
  },
];
/** Every agent tool's input (tools/agent-tool.ts). */
const AGENT: Tool = {
  name: "research",
  description: "Finds sources.",
  input_schema: {
    type: "object",
    properties: { input: { type: "string", description: "The task for the agent, as its first message." } },
    required: ["input"],
    additionalProperties: false,
  },
};
const DEPLOY: Tool = {
  name: "deploy",
  description: "Deploys.",
  input_schema: {
    type: "object",
    properties: { env: { enum: ["staging", "production"] } },
    required: ["env"],
    additionalProperties: false,
  },
};
const LOCATE: Tool = {
  name: "get_location",
  description: "Where the user is (the browser answers).",
  input_schema: { type: "object", properties: { precise: { type: "boolean" } }, required: ["precise"], additionalProperties: false },
};
const GET_TIME: Tool = {
  name: "get_time",
  description: "time",
  input_schema: { type: "object", properties: { timezone: { type: "string" } } },
};

describe("the mock model's markers", () => {
  let server: MockServer;

  beforeAll(async () => {
    server = await startMockServer({ modelFallback: toolUsingFallback });
  });
  afterAll(async () => {
    await server.close();
  });

  async function ask(messages: Turn[], tools: Tool[], extra: Record<string, unknown> = {}): Promise<Block[]> {
    const res = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "dev-model", max_tokens: 100, messages, tools, ...extra }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { content: Block[] }).content;
  }

  /** Asks, answers the one tool call with `result`, and asks again: the call and the final text. */
  async function callThenAnswer(prompt: string, tools: Tool[], result: string): Promise<{ call: Block; answer: string }> {
    const messages: Turn[] = [{ role: "user", content: prompt }];
    const first = await ask(messages, tools);
    const call = first.find((block) => block.type === "tool_use")!;
    expect(call, JSON.stringify(first)).toBeDefined();
    messages.push(
      { role: "assistant", content: first },
      { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: result } as Block] },
    );
    const second = await ask(messages, tools);
    expect(second.some((block) => block.type === "tool_use")).toBe(false);
    return { call, answer: second.map((block) => block.text).join("") };
  }

  it("[mock:memory] saves a statement in the session's own namespace, and recalls it for a question", async () => {
    const saved = await callThenAnswer("[mock:memory] I prefer French.", [...MEMORY, GET_TIME], "{}");
    expect(saved.call).toMatchObject({
      name: "memory_put",
      input: { key: "note", value: { note: "I prefer French." }, namespace: ["users", "u_123"] },
    });
    expect(saved.answer).toBe("Saved to memory: I prefer French.");

    // As the memory_search tool answers (tools/builtin/memory.ts).
    const found = JSON.stringify({
      results: [{ namespace: ["users", "u_123"], key: "note", value: { note: "I prefer French." }, updated_at: "x", score: 1 }],
    });
    const recalled = await callThenAnswer("[mock:memory] Which language do I prefer?", MEMORY, found);
    // The search names the session's own namespace, as the save does.
    expect(recalled.call).toEqual(
      expect.objectContaining({ name: "memory_search", input: { query: "Which language do I prefer", namespace: ["users", "u_123"] } }),
    );
    expect(recalled.answer).toBe("From memory: I prefer French.");

    const none = await callThenAnswer("[mock:memory] Which seat do I like?", MEMORY, JSON.stringify({ results: [] }));
    expect(none.answer).toBe('Nothing in memory matches "Which seat do I like?".');
  });

  it("[mock:memory] says so when the session has no memory grant", async () => {
    const [answer] = await ask([{ role: "user", content: "[mock:memory] I prefer French." }], [GET_TIME]);
    expect(answer?.text).toContain("memory");
    expect(answer?.type).toBe("text");
  });

  it("[mock:subagent] calls the agent tool with the text, its marker left out", async () => {
    const { call, answer } = await callThenAnswer("Summarise bicycles. [mock:subagent]", [GET_TIME, DEPLOY, AGENT], "Bicycles are old.");
    expect(call).toMatchObject({ name: "research", input: { input: "Summarise bicycles." } });
    expect(answer).toBe("research answered: Bicycles are old.");
  });

  it("[mock:approval] calls the first tool the session declares, or the one it names", async () => {
    const first = await callThenAnswer("[mock:approval] ship it", [...MEMORY, DEPLOY, GET_TIME], "deployed");
    expect(first.call.name).toBe("deploy");
    expect(["staging", "production"]).toContain((first.call.input as { env: string }).env);
    expect(first.answer).toBe("deploy answered: deployed");
    const named = await callThenAnswer("[mock:approval:get_time] what time is it", [DEPLOY, GET_TIME], "noon");
    expect(named.call).toMatchObject({ name: "get_time", input: { timezone: "Europe/Paris" } });
  });

  it("[mock:client_tool] passes over the platform's own tools and agent tools", async () => {
    const { call, answer } = await callThenAnswer("[mock:client_tool] where am I", [...MEMORY, GET_TIME, AGENT, LOCATE], "Paris");
    expect(call.name).toBe("get_location");
    expect(typeof (call.input as { precise: unknown }).precise).toBe("boolean");
    expect(answer).toBe("get_location answered: Paris");
  });

  it("[mock:structured] answers at once through the output schema's respond tool", async () => {
    const respond: Tool = {
      name: "respond",
      description: "answer",
      input_schema: { type: "object", properties: { category: { enum: ["damage", "delay"] } }, required: ["category"] },
    };
    const content = await ask([{ role: "user", content: "[mock:structured] Classify this." }], [GET_TIME, respond], {
      tool_choice: { type: "any" },
    });
    expect(content).toHaveLength(1);
    expect(content[0]).toMatchObject({ type: "tool_use", name: "respond" });
    expect(["damage", "delay"]).toContain((content[0]!.input as { category: string }).category);
  });

  it("looks only at the latest user text: an earlier marker changes nothing", async () => {
    const history: Turn[] = [
      { role: "user", content: "[mock:subagent] go" },
      { role: "assistant", content: [{ type: "text", text: "done" }] },
      { role: "user", content: "hello" },
    ];
    const [answer] = await ask(history, []);
    expect(answer?.text).toContain('You said: "hello"');
  });

  it("names the markers it knows for one it does not", async () => {
    const [answer] = await ask([{ role: "user", content: "[mock:dance]" }], []);
    expect(answer?.text).toContain("[mock:memory]");
  });

  it("works on the tests' plain mock too, which otherwise says ok", async () => {
    const plain = await startMockServer();
    try {
      const res = await fetch(`${plain.url}/v1/messages`, {
        method: "POST",
        body: JSON.stringify({ model: "m", max_tokens: 1, messages: [{ role: "user", content: "[mock:subagent] hi" }], tools: [AGENT] }),
      });
      const content = ((await res.json()) as { content: Block[] }).content;
      expect(content.find((block) => block.type === "tool_use")).toMatchObject({ name: "research", input: { input: "hi" } });
    } finally {
      await plain.close();
    }
  });

  it("loads with Node's type stripping, as npm start loads it (no parameter properties, enums or namespaces)", async () => {
    const { stdout } = await promisify(execFile)(
      nodeBinary(),
      ["--input-type=module", "-e", 'const m = await import("./test/support/node/mock-behaviours.ts"); console.log(m.MARKERS.join(" "))'],
      { cwd: PROJECT_ROOT },
    );
    expect(stdout.trim()).toBe("memory subagent approval client_tool structured");
  });
});
