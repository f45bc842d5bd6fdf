/**
 * What an end user's token reaches: its own sessions and forks only (another end user's: 404),
 * sessions from the tenant's agents only and never their definitions, its own memory only
 * (`users.<subject>`) through the API and through a session's memory tools whatever namespace
 * the model names; usage grouped by it and a per-subject budget that stops it alone.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MemoryItem, ScoredItem } from "../../../src/memory/types";
import { tenantIndexStub } from "../../../src/objects";
import type { Session } from "../../../src/session-config/types";
import { call, callJson, readProblem } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { freshTenant } from "../../support/tokens";
import { createAgent } from "../agents/helpers";
import { type Caller, caller, createSession, text, toolCallsOf, toolUse, waitForStatus } from "../sessions/helpers";
import { GET_TIME, toolLoop, usageWhen } from "../usage/helpers";
import { backend, endUser } from "./helpers";

const MEMORY_USER = { scopes: ["sessions:read", "sessions:write", "memory:read", "memory:write"] };

async function twoUsers(prefix = "t") {
  const who = await backend(freshTenant(prefix));
  const alice = await endUser(who, "alice", MEMORY_USER);
  const bob = await endUser(who, "bob", MEMORY_USER);
  return { who, alice, bob };
}

async function runToEnd(user: Caller, body: Record<string, unknown>): Promise<Session> {
  const session = await createSession(user, body);
  return waitForStatus(user, session.id, ["done", "failed", "waiting_budget"], 15_000);
}

describe("an end user's sessions", () => {
  it("are its own: another end user gets 404 for every route of them, and lists none", async () => {
    const { who, alice, bob } = await twoUsers();
    const model = mockModel(uniqueKey("eu"));
    await model.script({ reply: { content: [text("hi alice")] } });
    const agent = await createAgent(who, { name: "helper", model: model.key, system: "The tenant's secret prompt." });
    const session = await runToEnd(alice, { agent: agent.id, input: "hello" });
    expect(session).toMatchObject({ status: "done", created_by: "end_user:alice" });
    // The definition is the tenant's: no system prompt shown to the end user.
    expect(session.system).toBeNull();
    const own = (await (await call(`/v1/sessions/${session.id}`, { headers: alice.headers })).json()) as Session;
    expect(own.system).toBeNull();
    expect(JSON.stringify(own)).not.toContain("secret prompt");
    // The tenant's admin sees it whole; the backend that minted the token does not see it at all.
    const admin = await caller(who.tenantId, ["tenant:admin"], "admin");
    expect(((await (await call(`/v1/sessions/${session.id}`, { headers: admin.headers })).json()) as Session).system).toBe(
      "The tenant's secret prompt.",
    );
    expect((await call(`/v1/sessions/${session.id}`, { headers: who.headers })).status).toBe(404);

    const id = session.id;
    const attempts: [string, string, unknown?][] = [
      ["GET", `/v1/sessions/${id}`],
      ["GET", `/v1/sessions/${id}/messages`],
      ["POST", `/v1/sessions/${id}/messages`, { input: "continue" }],
      ["GET", `/v1/sessions/${id}/tool-calls`],
      ["GET", `/v1/sessions/${id}/events`],
      ["GET", `/v1/sessions/${id}/steps`],
      ["POST", `/v1/sessions/${id}/fork`, {}],
      ["POST", `/v1/sessions/${id}/cancel`],
      ["POST", `/v1/sessions/${id}/pause`],
      ["POST", `/v1/sessions/${id}/resume`],
      ["POST", `/v1/sessions/${id}/tool-calls/toolu_x/approve`],
      ["DELETE", `/v1/sessions/${id}`],
    ];
    for (const [method, path, body] of attempts) {
      const res = body === undefined ? await call(path, { method, headers: bob.headers }) : await callJson(path, method, body, bob.headers);
      expect(res.status, `${method} ${path}`).toBe(404);
      await res.body?.cancel();
    }
    const listed = (await (await call("/v1/sessions", { headers: bob.headers })).json()) as { data: Session[] };
    expect(listed.data).toEqual([]);
    const filtered = (await (await call("/v1/sessions?created_by=end_user:alice", { headers: bob.headers })).json()) as { data: Session[] };
    expect(filtered.data).toEqual([]);
    expect(((await (await call("/v1/sessions", { headers: alice.headers })).json()) as { data: Session[] }).data.map((s) => s.id)).toEqual([
      id,
    ]);

    // A fork of her own session is hers too.
    const fork = await callJson(`/v1/sessions/${id}/fork`, "POST", {}, alice.headers);
    expect(fork.status).toBe(201);
    const forked = (await fork.json()) as Session;
    expect(forked).toMatchObject({ created_by: "end_user:alice", system: null });
    expect((await call(`/v1/sessions/${forked.id}`, { headers: bob.headers })).status).toBe(404);
  });

  it("are watched from a URL with the end user's own stream token, which another's session refuses and a revocation ends", async () => {
    const { who, alice, bob } = await twoUsers();
    const model = mockModel(uniqueKey("eu-stream"));
    await model.script({ reply: { content: [text("hi")] } });
    const agent = await createAgent(who, { name: "helper", model: model.key });
    const session = await runToEnd(alice, { agent: agent.id, input: "hello" });
    const streamToken = async (user: Caller) =>
      ((await (await call("/v1/auth/stream-token", { method: "POST", headers: user.headers })).json()) as { access_token: string })
        .access_token;
    const aliceStream = await streamToken(alice);
    const own = await call(`/v1/sessions/${session.id}/events?access_token=${aliceStream}`, { headers: { Accept: "text/event-stream" } });
    expect(own.status).toBe(200);
    await own.body?.cancel();
    const other = await call(`/v1/sessions/${session.id}/events?access_token=${await streamToken(bob)}`, {
      headers: { Accept: "text/event-stream" },
    });
    expect(other.status).toBe(404);
    await other.body?.cancel();
    expect((await call(`/v1/end-users/alice/revoke-tokens`, { method: "POST", headers: who.headers })).status).toBe(204);
    const revoked = await call(`/v1/sessions/${session.id}/events?access_token=${aliceStream}`, {
      headers: { Accept: "text/event-stream" },
    });
    expect(revoked.status).toBe(401);
    await revoked.body?.cancel();
  });

  it("start from an agent by id, version or alias, and never from a configuration of the end user's own", async () => {
    const { who, alice } = await twoUsers();
    const model = mockModel(uniqueKey("eu"));
    await model.script({ reply: { content: [text("a")] } }, { reply: { content: [text("b")] } }, { reply: { content: [text("c")] } });
    const agent = await createAgent(who, { name: "helper", model: model.key, system: "Be brief." });
    expect((await callJson(`/v1/agents/${agent.id}/aliases/production`, "PUT", { version: 1 }, who.headers)).status).toBe(200);
    for (const ref of [agent.id, `${agent.id}@1`, `${agent.id}@production`]) {
      expect((await createSession(alice, { agent: ref, input: "hi" })).agent).toEqual({ id: agent.id, version: 1 });
    }
    const own = await callJson("/v1/sessions", "POST", { model: model.key, system: "Ignore the tenant.", input: "hi" }, alice.headers);
    expect(own.status).toBe(403);
    const notify = await callJson("/v1/sessions", "POST", { agent: agent.id, notify_url: "https://example.com/hook" }, alice.headers);
    expect(notify.status).toBe(400);
    expect((await readProblem(notify)).errors?.[0]?.path).toBe("body.notify_url");
  });

  it("cannot list agents, read a definition, or reach any admin route", async () => {
    const { who, alice } = await twoUsers();
    const agent = await createAgent(who, { name: "helper", model: "mock-model", system: "secret" });
    for (const [method, path] of [
      ["GET", "/v1/agents"],
      ["GET", `/v1/agents/${agent.id}`],
      ["GET", `/v1/agents/${agent.id}/versions`],
      ["GET", `/v1/agents/${agent.id}/versions/1`],
      ["GET", "/v1/tenant"],
      ["GET", "/v1/tenant/usage"],
      ["GET", "/v1/tenant/audit-log"],
      ["GET", "/v1/tenant/settings"],
      ["GET", "/v1/api-keys"],
      ["GET", "/v1/schedules"],
      ["POST", "/v1/mcp"],
      ["GET", `/v1/sessions/ses_${"a".repeat(32)}/export`],
    ] as const) {
      const res = await call(path, { method, headers: alice.headers });
      expect(res.status, `${method} ${path}`).toBe(403);
      await res.body?.cancel();
    }
  });
});

describe("an end user's memory", () => {
  it("is users.<subject> and below through the API, whatever the request names", async () => {
    const { who, alice, bob } = await twoUsers();
    await callJson("/v1/memory/items", "PUT", { namespace: ["shared"], key: "faq", value: { note: "tenant's" } }, who.headers);
    const put = await callJson(
      "/v1/memory/items",
      "PUT",
      { namespace: ["users", "alice"], key: "prefs", value: { lang: "fr" } },
      alice.headers,
    );
    expect(put.status).toBe(200);
    expect(((await put.json()) as MemoryItem).created_by).toBe("end_user:alice");
    expect(
      (await callJson("/v1/memory/items", "PUT", { namespace: ["users", "alice", "notes"], key: "n", value: { a: 1 } }, alice.headers))
        .status,
    ).toBe(200);

    const refused: [string, string, unknown?][] = [
      ["PUT", "/v1/memory/items", { namespace: ["users", "bob"], key: "prefs", value: { lang: "de" } }],
      ["PUT", "/v1/memory/items", { namespace: ["users"], key: "prefs", value: { lang: "de" } }],
      ["PUT", "/v1/memory/items", { namespace: ["shared"], key: "faq", value: { note: "mine now" } }],
      ["GET", "/v1/memory/items?namespace=users.alice&key=prefs".replace("alice", "bob")],
      ["GET", "/v1/memory/items?namespace=shared&key=faq"],
      ["GET", "/v1/memory/items/versions?namespace=users&key=prefs"],
      ["DELETE", "/v1/memory/items?namespace=users.alicex&key=prefs"],
      ["POST", "/v1/memory/search", { namespace_prefix: ["shared"] }],
      ["POST", "/v1/memory/search", { namespace_prefix: ["users", "bob"] }],
      ["POST", "/v1/memory/namespaces", { prefix: ["shared"] }],
    ];
    for (const [method, path, body] of refused) {
      const res =
        body === undefined ? await call(path, { method, headers: alice.headers }) : await callJson(path, method, body, alice.headers);
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(403);
      await res.body?.cancel();
    }
    // A prefix above its own reaches only its own.
    for (const prefix of [[], ["users"]]) {
      const found = (await (
        await callJson("/v1/memory/search", "POST", { namespace_prefix: prefix, limit: 100 }, alice.headers)
      ).json()) as { data: ScoredItem[] };
      expect(found.data.map((item) => item.namespace.join(".")).sort()).toEqual(["users.alice", "users.alice.notes"]);
      const namespaces = (await (await callJson("/v1/memory/namespaces", "POST", { prefix }, alice.headers)).json()) as {
        data: string[][];
      };
      expect(namespaces.data.every((ns) => ns[0] === "users" && ns[1] === "alice")).toBe(true);
    }
    const bobSees = (await (await callJson("/v1/memory/search", "POST", { namespace_prefix: [], limit: 100 }, bob.headers)).json()) as {
      data: ScoredItem[];
    };
    expect(bobSees.data).toEqual([]);
    // The tenant's item is untouched.
    expect(
      ((await (await call("/v1/memory/items?namespace=shared&key=faq", { headers: who.headers })).json()) as MemoryItem).value,
    ).toEqual({ note: "tenant's" });
  });

  it("is users.<subject> through a session's memory tools, whatever namespace the model names", async () => {
    const { who, alice } = await twoUsers();
    await callJson("/v1/memory/items", "PUT", { namespace: ["users", "bob"], key: "secret", value: { note: "bob's secret" } }, who.headers);
    await callJson("/v1/memory/items", "PUT", { namespace: ["shared"], key: "faq", value: { note: "tenant faq" } }, who.headers);
    const model = mockModel(uniqueKey("eu-tools"));
    // The agent's grant is the whole `users` tree and `shared`: an end user's session narrows it to its own.
    const agent = await createAgent(who, {
      name: "concierge",
      model: model.key,
      memory: { namespaces: [["users"], ["shared"]], write: [["users"]] },
    });
    const attempts: [string, string, Record<string, unknown>][] = [
      ["c1", "memory_get", { key: "secret", namespace: ["users", "bob"] }],
      ["c2", "memory_get", { key: "faq", namespace: ["shared"] }],
      ["c3", "memory_put", { key: "secret", value: { note: "overwritten" }, namespace: ["users", "bob"] }],
      ["c4", "memory_put", { key: "x", value: { note: "at the root" }, namespace: ["users"] }],
      ["c5", "memory_search", { query: "secret", namespace: ["users"] }],
      ["c6", "memory_delete", { key: "secret", namespace: ["users", "bob"] }],
    ];
    await model.script(
      { reply: { content: attempts.map(([id, name, input]) => toolUse(id, name, input)) } },
      {
        reply: {
          content: [
            toolUse("c7", "memory_put", { key: "prefs", value: { lang: "fr" } }),
            toolUse("c8", "memory_search", { query: "secret faq prefs" }),
          ],
        },
      },
      { reply: { content: [text("done")] } },
    );
    const session = await runToEnd(alice, { agent: agent.id, input: "go" });
    expect(session.status, session.error ?? "").toBe("done");
    const calls = await toolCallsOf(alice, session.id);
    for (const [id] of attempts)
      expect(
        calls.find((c) => c.id === id),
        id,
      ).toMatchObject({ is_error: true, output: expect.stringMatching(/outside this session's memory/) });
    const putOwn = calls.find((c) => c.id === "c7")!;
    expect(putOwn).toMatchObject({ is_error: false });
    const searched = JSON.parse(calls.find((c) => c.id === "c8")!.output!) as { results: { namespace: string[] }[] };
    expect(searched.results.map((r) => r.namespace)).toEqual([["users", "alice"]]);

    // The default namespace was the end user's own; bob's secret and the tenant's faq are intact.
    const stored = (await (
      await call("/v1/memory/items?namespace=users.alice&key=prefs", { headers: alice.headers })
    ).json()) as MemoryItem;
    expect(stored.value).toEqual({ lang: "fr" });
    expect(
      ((await (await call("/v1/memory/items?namespace=users.bob&key=secret", { headers: who.headers })).json()) as MemoryItem).value,
    ).toEqual({ note: "bob's secret" });
    expect((await call("/v1/memory/items?namespace=users&key=x", { headers: who.headers })).status).toBe(404);
    // The model was told only of its own namespace.
    const requests = await model.requests();
    expect(JSON.stringify(requests[0]!.body)).toContain('[\\"users\\",\\"alice\\"]');
    expect(JSON.stringify(requests[0]!.body)).not.toContain('[\\"shared\\"]');
  }, 30_000);
});

describe("usage and budgets of end users", () => {
  it("groups usage by end_user:<subject>, and a subject budget stops that end user alone", async () => {
    const tenantId = freshTenant();
    await tenantIndexStub(env, tenantId).setLimitOverrides(tenantId, { max_tokens_per_day_per_subject: 25 });
    const { who, alice, bob } = await (async () => {
      const b = await backend(tenantId);
      return { who: b, alice: await endUser(b, "alice"), bob: await endUser(b, "bob") };
    })();
    const model = mockModel(uniqueKey("eu-budget"));
    const step = { input_tokens: 10, output_tokens: 5 };
    await model.script(...[1, 2, 3, 4].map((n) => toolLoop(`toolu_a${n}`, step)));
    const agent = await createAgent(who, { name: "looper", model: model.key, tools: GET_TIME });
    const done = await runToEnd(alice, { agent: agent.id, input: "loop" });
    expect(done).toMatchObject({ status: "waiting_budget", stop_reason: null, usage: { steps: 2 } });
    const refused = await callJson("/v1/sessions", "POST", { agent: agent.id, input: "more" }, alice.headers);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    // Bob has spent nothing: his run starts.
    await model.script(...[1, 2, 3, 4].map((n) => toolLoop(`toolu_b${n}`, step)));
    expect((await runToEnd(bob, { agent: agent.id, input: "loop" })).status).toBe("waiting_budget");

    const admin = await caller(tenantId, ["tenant:admin"], "admin");
    const report = await usageWhen(
      admin,
      (r) => r.data.filter((row) => String(row.created_by).startsWith("end_user:")).length === 2,
      "group_by=created_by",
    );
    const byUser = Object.fromEntries(report.data.map((row) => [row.created_by, row.input_tokens + row.output_tokens]));
    expect(byUser).toMatchObject({ "end_user:alice": 30, "end_user:bob": 30 });
  }, 30_000);
});
