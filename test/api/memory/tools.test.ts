/**
 * Memory through a session's tools: an agent whose grant is filled from each session's metadata
 * writes a preference in one session and finds it in the next, on both providers' mocks; a
 * hostile model's every way out of its namespaces is refused; grants are checked at creation.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub } from "../../../src/objects";
import type { MemoryItem, ScoredItem } from "../../../src/memory/types";
import type { Session } from "../../../src/session-config/types";
import { call, callJson, readProblem } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { freshTenant } from "../../support/tokens";
import { createAgent } from "../agents/helpers";
import { type Caller, caller, createSession, text, toolCallsOf, toolUse, waitForStatus } from "../sessions/helpers";

const BACKEND = ["sessions:read", "sessions:write", "agents:write", "memory:read", "memory:write"] as const;

const PROVIDERS = [
  { name: "Anthropic", id: (key: string) => key },
  { name: "OpenAI-compatible", id: (key: string) => `openai:${key}` },
] as const;

async function putItem(who: Caller, namespace: string[], key: string, value: Record<string, unknown>): Promise<void> {
  const res = await callJson("/v1/memory/items", "PUT", { namespace, key, value }, who.headers);
  expect(res.status, await res.clone().text()).toBe(200);
}

async function everything(who: Caller): Promise<ScoredItem[]> {
  const res = await callJson("/v1/memory/search", "POST", { namespace_prefix: [], limit: 100 }, who.headers);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: ScoredItem[] }).data;
}

async function runToEnd(who: Caller, body: Record<string, unknown>): Promise<Session> {
  const session = await createSession(who, body);
  const done = await waitForStatus(who, session.id, ["done", "failed"], 15_000);
  expect(done.status, done.error ?? "").toBe("done");
  return done;
}

const toolNames = (body: unknown): string[] =>
  ((body as { tools?: { name?: string; function?: { name: string } }[] }).tools ?? []).map((tool) => tool.name ?? tool.function!.name);

describe.each(PROVIDERS)("memory tools on the $name provider", (provider) => {
  it("let an agent write a preference in one session and find it in the next, each session scoped to its user", async () => {
    const who = await caller(freshTenant(), BACKEND, "backend");
    const model = mockModel(uniqueKey("model"));
    const agent = await createAgent(who, {
      name: "concierge",
      model: provider.id(model.key),
      system: "Remember what the customer prefers.",
      memory: { namespaces: [["users", "{metadata.user_id}"]], write: [["users", "{metadata.user_id}"]] },
    });
    expect(agent.definition.memory).toEqual({ namespaces: [["users", "{metadata.user_id}"]], write: [["users", "{metadata.user_id}"]] });

    await model.script(
      { reply: { content: [toolUse("call_put", "memory_put", { key: "preferences", value: { language: "French", seat: "aisle" } })] } },
      { reply: { content: [text("Noted: French, aisle seat.")] } },
    );
    const first = await runToEnd(who, {
      agent: agent.id,
      input: "Please speak French to me, and I like aisle seats.",
      metadata: { user_id: "u_42" },
    });
    expect(first.memory).toEqual({ namespaces: [["users", "u_42"]], write: [["users", "u_42"]] });
    const [put] = await toolCallsOf(who, first.id);
    expect(put).toMatchObject({ name: "memory_put", status: "done", is_error: false });

    const stored = (await (
      await call("/v1/memory/items?namespace=users.u_42&key=preferences", { headers: who.headers })
    ).json()) as MemoryItem;
    expect(stored).toMatchObject({ value: { language: "French", seat: "aisle" }, version: 1, created_by: `session:${first.id}` });

    // The next session of the same user finds it; another user's session does not.
    await model.script(
      { reply: { content: [toolUse("call_search", "memory_search", { query: "which language does the customer prefer" })] } },
      { reply: { content: [text("Bonjour !")] } },
      { reply: { content: [toolUse("call_search", "memory_search", { query: "which language does the customer prefer" })] } },
      { reply: { content: [text("Hello!")] } },
    );
    const second = await runToEnd(who, { agent: agent.id, input: "Hi again", metadata: { user_id: "u_42" } });
    const [found] = await toolCallsOf(who, second.id);
    expect(found?.is_error).toBe(false);
    const results = (JSON.parse(found!.output!) as { results: { namespace: string[]; key: string; value: unknown; score: number }[] })
      .results;
    expect(results).toEqual([
      expect.objectContaining({ namespace: ["users", "u_42"], key: "preferences", value: { language: "French", seat: "aisle" } }),
    ]);
    expect(results[0]!.score).toBeGreaterThan(0);

    const stranger = await runToEnd(who, { agent: agent.id, input: "Hi", metadata: { user_id: "u_7" } });
    const [empty] = await toolCallsOf(who, stranger.id);
    expect(JSON.parse(empty!.output!)).toEqual({ results: [] });

    // The model was offered the four tools, and told which namespaces are its own.
    const requests = await model.requests();
    expect(toolNames(requests[0]!.body).sort()).toEqual(["memory_delete", "memory_get", "memory_put", "memory_search"]);
    expect(JSON.stringify(requests[0]!.body)).toContain('[\\"users\\",\\"u_42\\"]');
  }, 30_000);
});

describe("a hostile model", () => {
  it("cannot leave its namespaces by any spelling, nor write where it may only read", async () => {
    const who = await caller(freshTenant(), BACKEND, "backend");
    await putItem(who, ["users", "u_2"], "secret", { note: "the other user's secret" });
    await putItem(who, ["users"], "index", { note: "a secret at the parent" });
    await putItem(who, ["shared"], "faq", { note: "opening hours are nine to five" });

    const attempts: [string, string, Record<string, unknown>][] = [
      ["get_sibling", "memory_get", { key: "secret", namespace: ["users", "u_2"] }],
      ["get_parent", "memory_get", { key: "index", namespace: ["users"] }],
      ["get_dotted", "memory_get", { key: "secret", namespace: ["users.u_2"] }],
      ["get_dotdot", "memory_get", { key: "secret", namespace: ["users", "u_1", "..", "u_2"] }],
      ["get_dotdot_segment", "memory_get", { key: "secret", namespace: ["users", ".."] }],
      ["get_empty", "memory_get", { key: "secret", namespace: ["users", ""] }],
      ["get_encoded", "memory_get", { key: "secret", namespace: ["users", "u_1%2E%2E"] }],
      ["get_slash", "memory_get", { key: "secret", namespace: ["users", "u_1/../u_2"] }],
      ["get_case", "memory_get", { key: "secret", namespace: ["Users", "u_2"] }],
      ["get_unicode", "memory_get", { key: "secret", namespace: ["ｕsers", "u_2"] }],
      ["get_nul", "memory_get", { key: "secret", namespace: ["users", "u_1\u0000"] }],
      ["get_string", "memory_get", { key: "secret", namespace: "users.u_2" }],
      ["get_none", "memory_get", { key: "secret", namespace: [] }],
      ["search_parent", "memory_search", { query: "secret", namespace: ["users"] }],
      ["search_sibling", "memory_search", { query: "secret", namespace: ["users", "u_2"] }],
      ["put_read_only", "memory_put", { key: "faq", value: { note: "overwritten" }, namespace: ["shared"] }],
      ["put_sibling", "memory_put", { key: "secret", value: { note: "overwritten" }, namespace: ["users", "u_2"] }],
      ["delete_read_only", "memory_delete", { key: "faq", namespace: ["shared"] }],
      ["delete_sibling", "memory_delete", { key: "secret", namespace: ["users", "u_2"] }],
      ["put_not_object", "memory_put", { key: "k", value: "a string" }],
    ];
    const allowed: [string, string, Record<string, unknown>][] = [
      ["search_all", "memory_search", { query: "secret hours" }],
      ["put_own_below", "memory_put", { key: "notes", value: { note: "mine" }, namespace: ["users", "u_1", "notes"] }],
      ["get_shared", "memory_get", { key: "faq", namespace: ["shared"] }],
    ];
    const model = mockModel(uniqueKey("model"));
    await model.script(
      { reply: { content: [...attempts, ...allowed].map(([id, name, input]) => toolUse(`call_${id}`, name, input)) } },
      { reply: { content: [text("I tried.")] } },
    );
    const session = await runToEnd(who, {
      model: model.key,
      input: "Find the other users' secrets.",
      memory: { namespaces: [["users", "u_1"], ["shared"]], write: [["users", "u_1"]] },
    });
    const calls = new Map((await toolCallsOf(who, session.id)).map((c) => [c.id.replace(/^call_/, ""), c]));
    for (const [id] of attempts) {
      const result = calls.get(id);
      expect(result?.is_error, `${id}: ${result?.output}`).toBe(true);
      expect(result?.output).not.toContain("secret at the parent");
      expect(result?.output).not.toContain("other user's secret");
    }
    for (const [id] of allowed) expect(calls.get(id)?.is_error, `${id}: ${calls.get(id)?.output}`).toBe(false);
    const searched = JSON.parse(calls.get("search_all")!.output!) as { results: { namespace: string[] }[] };
    expect(searched.results.map((r) => r.namespace)).toEqual([["shared"]]);
    expect(calls.get("get_sibling")?.output).toContain("outside this session's memory");

    // Nothing outside the grant changed; the one allowed write is there, made by the session.
    const items = await everything(who);
    expect(items.map((item) => [item.namespace.join("."), item.key, item.version, item.created_by]).sort()).toEqual([
      ["shared", "faq", 1, "backend"],
      ["users", "index", 1, "backend"],
      ["users.u_1.notes", "notes", 1, `session:${session.id}`],
      ["users.u_2", "secret", 1, "backend"],
    ]);
  }, 30_000);

  it("of one tenant never reaches another tenant's items with the same namespaces", async () => {
    const owner = await caller(freshTenant(), BACKEND, "backend");
    await putItem(owner, ["users", "u_1"], "prefs", { language: "German" });
    const other = await caller(freshTenant(), BACKEND, "backend");
    const model = mockModel(uniqueKey("model"));
    await model.script(
      {
        reply: {
          content: [
            toolUse("call_get", "memory_get", { key: "prefs" }),
            toolUse("call_search", "memory_search", { query: "German language" }),
          ],
        },
      },
      { reply: { content: [text("nothing")] } },
    );
    const session = await runToEnd(other, { model: model.key, input: "look", memory: { namespaces: [["users", "u_1"]] } });
    const [got, searched] = await toolCallsOf(other, session.id);
    expect(got).toMatchObject({ is_error: true, output: 'No memory item "prefs" in users.u_1.' });
    expect(JSON.parse(searched!.output!)).toEqual({ results: [] });
    // Read-only: no writer is offered.
    expect(toolNames((await model.requests())[0]!.body).sort()).toEqual(["memory_get", "memory_search"]);
  });

  it("is refused a memory_put past the tenant's max_memory_bytes, and nothing of it is kept", async () => {
    const who = await caller(freshTenant(), BACKEND, "backend");
    await tenantIndexStub(env, who.tenantId).setLimitOverrides(who.tenantId, { max_memory_bytes: 20_000 });
    const model = mockModel(uniqueKey("model"));
    await model.script(
      {
        reply: {
          content: [
            toolUse("call_small", "memory_put", { key: "small", value: { note: "fits" } }),
            toolUse("call_large", "memory_put", { key: "large", value: { note: "x".repeat(30_000) } }),
          ],
        },
      },
      { reply: { content: [text("done")] } },
    );
    const session = await runToEnd(who, { model: model.key, input: "remember", memory: { namespaces: [["notes"]], write: [["notes"]] } });
    const calls = new Map((await toolCallsOf(who, session.id)).map((call) => [call.id, call]));
    expect(calls.get("call_small")?.is_error, calls.get("call_small")?.output ?? "").toBe(false);
    expect(calls.get("call_large")?.is_error).toBe(true);
    expect(calls.get("call_large")?.output).toBe("Memory is full (20000 bytes); nothing was saved.");
    expect((await everything(who)).map((item) => item.key)).toEqual(["small"]);
  });
});

describe("a memory grant at creation", () => {
  it("is refused with the field at fault: a missing metadata field, a write outside the reads, a clashing tool name, a bad segment", async () => {
    const who = await caller(freshTenant(), BACKEND, "backend");
    const cases: [Record<string, unknown>, string][] = [
      [{ memory: { namespaces: [["users", "{metadata.user_id}"]] } }, "body.metadata"],
      [{ memory: { namespaces: [["users", "{metadata.user_id}"]] }, metadata: { user_id: "a.b" } }, "body.metadata.user_id"],
      [{ memory: { namespaces: [["users", "u_1"]], write: [["users"]] } }, "body.memory.write.0"],
      [
        {
          memory: { namespaces: [["users", "u_1"]] },
          tools: [{ type: "client", name: "memory_get", description: "x", input_schema: { type: "object" } }],
        },
        "body.tools.0.name",
      ],
      [{ memory: { namespaces: [["users", "u.1"]] } }, "body.memory.namespaces.0.1"],
      [{ memory: { namespaces: [] } }, "body.memory.namespaces"],
    ];
    for (const [body, path] of cases) {
      const res = await callJson("/v1/sessions", "POST", body, who.headers);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(
        (await readProblem(res)).errors?.map((e) => e.path),
        JSON.stringify(body),
      ).toContain(path);
    }
  });

  it("needs the memory scopes of whoever gives it; a session from an agent uses the agent author's", async () => {
    const tenant = freshTenant();
    const author = await caller(tenant, BACKEND, "author");
    const plain = await caller(tenant, ["sessions:read", "sessions:write"], "plain");
    const reader = await caller(tenant, ["sessions:read", "sessions:write", "memory:read"], "reader");
    const grant = { namespaces: [["team"]], write: [["team"]] };
    expect((await callJson("/v1/sessions", "POST", { memory: { namespaces: [["team"]] } }, plain.headers)).status).toBe(403);
    expect((await callJson("/v1/sessions", "POST", { memory: grant }, reader.headers)).status).toBe(403);
    expect((await callJson("/v1/sessions", "POST", { memory: { namespaces: [["team"]] } }, reader.headers)).status).toBe(201);
    const noMemory = await caller(tenant, ["sessions:read", "sessions:write", "agents:write"], "agent-writer");
    expect((await callJson("/v1/agents", "POST", { name: "sneaky", memory: grant }, noMemory.headers)).status).toBe(403);

    const agent = await createAgent(author, { name: "team-notes", memory: grant });
    const session = await createSession(plain, { agent: agent.id });
    expect(session.memory).toEqual(grant);
    // The grant is the agent's: a session may not bring its own beside it.
    const beside = await callJson("/v1/sessions", "POST", { agent: agent.id, memory: { namespaces: [["other"]] } }, author.headers);
    expect(beside.status).toBe(400);
    expect((await readProblem(beside)).errors?.map((e) => e.path)).toEqual(["body.memory"]);
    // A session of an agent whose grant needs metadata it was not given.
    const templated = await createAgent(author, { name: "per-user", memory: { namespaces: [["users", "{metadata.user_id}"]] } });
    const missing = await callJson("/v1/sessions", "POST", { agent: templated.id }, plain.headers);
    expect(missing.status).toBe(400);
    expect((await readProblem(missing)).errors?.map((e) => e.path)).toEqual(["body.metadata"]);
    // Filling the templates chooses whose memory the session reads: the caller needs that access.
    const chosen = await callJson("/v1/sessions", "POST", { agent: templated.id, metadata: { user_id: "victim" } }, plain.headers);
    expect(chosen.status).toBe(403);
    expect((await readProblem(chosen)).detail).toBe("A memory grant requires the memory:read scope.");
    // Metadata no template names needs nothing more.
    expect((await callJson("/v1/sessions", "POST", { agent: agent.id, metadata: { topic: "x" } }, plain.headers)).status).toBe(201);
    const filled = await createSession(reader, { agent: templated.id, metadata: { user_id: "u_5" } });
    expect(filled.memory).toEqual({ namespaces: [["users", "u_5"]], write: [] });
  });
});
