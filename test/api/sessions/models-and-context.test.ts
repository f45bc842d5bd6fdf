/** The model and context settings a session is created with, and the platform admin's narrowing of a tenant's models. */
import { describe, expect, it } from "vitest";
import { call, callJson, readProblem } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { bearer, freshTenant } from "../../support/tokens";
import { caller, createSession, text, waitForStatus } from "./helpers";
import { author, createAgent } from "../agents/helpers";

// An operator of its own: the admin tests' operator shares one request window across files.
const OPS_TENANT = freshTenant("ops");
const platformAdmin = () => bearer({ tenantId: OPS_TENANT, subject: "ops-1", scopes: ["platform:admin"] });

async function setModels(tenantId: string, models: string[] | null): Promise<Response> {
  return callJson(`/v1/admin/tenants/${tenantId}/models`, "PUT", { models }, await platformAdmin());
}

describe("context settings", () => {
  it("keeps the settings given, with the strategy named", async () => {
    const who = await caller();
    expect((await createSession(who, { context: { strategy: "summary", max_input_tokens: 20_000 } })).context).toEqual({
      strategy: "summary",
      max_input_tokens: 20_000,
    });
    expect((await createSession(who, { context: { max_input_tokens: 9_000 } })).context).toEqual({
      strategy: "auto",
      max_input_tokens: 9_000,
    });
    expect((await createSession(who, {})).context).toEqual({ strategy: "auto" });
    // Absent means the default; null is not a setting.
    expect((await callJson("/v1/sessions", "POST", { context: null }, who.headers)).status).toBe(400);
  });

  it.each([
    ["an unknown strategy", { strategy: "everything" }, "body.context.strategy"],
    ["a count without its strategy", { strategy: "auto", last_messages: 5 }, "body.context.last_messages"],
    ["a budget too small for a task", { max_input_tokens: 10 }, "body.context.max_input_tokens"],
    ["a field it does not know", { strategy: "auto", window: 3 }, "body.context"],
  ])("refuses %s with a 400 naming the field", async (_name, context, path) => {
    const who = await caller();
    const res = await callJson("/v1/sessions", "POST", { context }, who.headers);
    expect(res.status).toBe(400);
    const problem = await readProblem(res);
    expect(problem.errors?.map((e) => e.path)).toContain(path);
  });
});

describe("models", () => {
  it("runs a prefixed model on its provider and echoes the id as given", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("gpt"));
    await model.script({ reply: { content: [text("from the other provider")] } });
    const session = await createSession(who, { input: "hi", model: `openai:${model.key}` });
    expect(session.model).toBe(`openai:${model.key}`);
    expect((await waitForStatus(who, session.id, ["done", "failed"])).status).toBe("done");
    const [request] = await model.requests();
    expect(request!.path).toBe("/v1/chat/completions");
    expect(request!.body).toMatchObject({ model: model.key });
  });

  it("lets a platform admin narrow a tenant's models; any other model is a 400", async () => {
    const who = await caller();
    const allowed = uniqueKey("allowed");
    const put = await setModels(who.tenantId, [`anthropic:${allowed}`, "openai:team-*"]);
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ tenant_id: who.tenantId, models: [`anthropic:${allowed}`, "openai:team-*"] });

    expect((await createSession(who, { model: allowed })).model).toBe(allowed);
    expect((await createSession(who, { model: "openai:team-llama" })).model).toBe("openai:team-llama");
    // Without a model, the platform default is not allowed: the tenant's first exact model is used.
    expect((await createSession(who)).model).toBe(`anthropic:${allowed}`);
    for (const model of ["claude-sonnet-4-5", "openai:other", `openai:${allowed}`]) {
      const res = await callJson("/v1/sessions", "POST", { model }, who.headers);
      expect([model, res.status]).toEqual([model, 400]);
      expect((await readProblem(res)).errors).toEqual([{ path: "body.model", message: expect.stringContaining(model) }]);
    }

    expect((await setModels(who.tenantId, null)).status).toBe(200);
    expect((await createSession(who, { model: "claude-sonnet-4-5" })).model).toBe("claude-sonnet-4-5");
  });

  it("refuses a malformed list, and callers without platform:admin", async () => {
    const who = await caller();
    for (const body of [{ models: ["has space"] }, { models: "openai:*" }, {}, { models: [], extra: 1 }]) {
      const res = await callJson(`/v1/admin/tenants/${who.tenantId}/models`, "PUT", body, await platformAdmin());
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
    }
    const tenantAdmin = await bearer({ tenantId: who.tenantId, scopes: ["tenant:admin", "sessions:write"] });
    expect((await callJson(`/v1/admin/tenants/${who.tenantId}/models`, "PUT", { models: null }, tenantAdmin)).status).toBe(403);
  });

  it("shows the narrowing in the tenant's config", async () => {
    const who = await caller();
    await setModels(who.tenantId, ["openai:*"]);
    const res = await call(`/v1/admin/tenants/${who.tenantId}`, { headers: await platformAdmin() });
    expect(((await res.json()) as { models: string[] }).models).toEqual(["openai:*"]);
  });
});

describe("reasoning", () => {
  it("maps effort or a budget to each provider's request, and shows the settings on the session", async () => {
    const who = await caller();
    const claude = mockModel(uniqueKey("claude-sonnet-4-5"));
    const session = await createSession(who, { input: "think first", model: claude.key, reasoning: { budget_tokens: 2_048 } });
    expect(session.reasoning).toEqual({ budget_tokens: 2_048 });
    expect((await waitForStatus(who, session.id, ["done", "failed"])).status).toBe("done");
    expect((await claude.requests())[0]!.body).toMatchObject({ max_tokens: 4096, thinking: { type: "enabled", budget_tokens: 2_048 } });

    const o3 = mockModel(uniqueKey("o3"));
    const chat = await createSession(who, { input: "think first", model: `openai:${o3.key}`, reasoning: { effort: "high" } });
    expect((await waitForStatus(who, chat.id, ["done", "failed"])).status).toBe("done");
    expect((await o3.requests())[0]!.body).toMatchObject({ reasoning_effort: "high" });

    // Without settings, none are sent.
    const plain = mockModel(uniqueKey("claude-sonnet-4-5"));
    const none = await createSession(who, { input: "just answer", model: plain.key });
    expect(none.reasoning).toBeNull();
    await waitForStatus(who, none.id, ["done", "failed"]);
    expect((await plain.requests())[0]!.body).not.toHaveProperty("thinking");
  });

  it.each([
    [
      "a model the catalog does not mark as a reasoning model",
      { model: "claude-3-5-haiku-latest", reasoning: { effort: "low" } },
      "body.reasoning",
    ],
    [
      "a budget on a Chat Completions model",
      { model: "openai:o4-mini", reasoning: { budget_tokens: 2_000 } },
      "body.reasoning.budget_tokens",
    ],
    [
      "a budget that reaches the answer's cap",
      { model: "claude-opus-4-1", reasoning: { budget_tokens: 4_096 } },
      "body.reasoning.budget_tokens",
    ],
    [
      "a budget below Anthropic's smallest",
      { model: "claude-opus-4-1", reasoning: { budget_tokens: 512 } },
      "body.reasoning.budget_tokens",
    ],
    ["an effort it does not know", { model: "claude-opus-4-1", reasoning: { effort: "max" } }, "body.reasoning.effort"],
    ["a field it does not know", { model: "claude-opus-4-1", reasoning: { effort: "low", tokens: 1 } }, "body.reasoning"],
  ])("refuses %s with a 400 naming the field", async (_name, body, path) => {
    const who = await caller();
    const res = await callJson("/v1/sessions", "POST", body, who.headers);
    expect(res.status).toBe(400);
    expect((await readProblem(res)).errors?.map((e) => e.path)).toContain(path);
  });
});

describe("reasoning in an agent's definition", () => {
  it("is checked like a session's, goes to the agent's sessions, and is refused beside `agent`", async () => {
    const who = await author();
    const refused = await callJson(
      "/v1/agents",
      "POST",
      { name: "plain", model: "claude-3-5-haiku-latest", reasoning: { effort: "low" } },
      who.headers,
    );
    expect(refused.status).toBe(400);
    expect((await readProblem(refused)).errors?.map((e) => e.path)).toContain("body.reasoning");

    const claude = mockModel(uniqueKey("claude-opus-4-1"));
    const agent = await createAgent(who, { name: "thinker", model: claude.key, reasoning: { effort: "low" } });
    const session = await createSession(who, { agent: agent.id, input: "think" });
    expect(session.reasoning).toEqual({ effort: "low" });
    await waitForStatus(who, session.id, ["done", "failed"]);
    expect((await claude.requests())[0]!.body).toMatchObject({ thinking: { type: "enabled", budget_tokens: 1_024 } });

    const beside = await callJson("/v1/sessions", "POST", { agent: agent.id, reasoning: { effort: "high" } }, who.headers);
    expect(beside.status).toBe(400);
    expect((await readProblem(beside)).errors?.map((e) => e.path)).toContain("body.reasoning");
  });
});
