/**
 * Canary aliases through the public API: the split by a stable hash of the caller (each end user
 * on one version across sessions and chats), the rollback once the rule's minimum of runs is
 * crossed (audit entry and webhook), promotion, and the bad input refused with its path.
 */
import { describe, expect, it } from "vitest";
import { canaryBucket, routingKey } from "../../../src/agents/canary";
import { chatSessionId } from "../../../src/chat/chat-session";
import type { Session } from "../../../src/session-config/types";
import { call, callJson } from "../../support/api";
import { mockHook, mockModel, uniqueKey } from "../../support/mock-client";
import { freshTenant } from "../../support/tokens";
import { eventually, registerEndpoint } from "../../notifications/helpers";
import { tenantLog } from "../audit/helpers";
import { backend, endUser } from "../end-users/helpers";
import { caller, getJson, post, text, waitForStatus, type Caller } from "../sessions/helpers";
import { type Agent, archive, createAgent, patchAgent } from "./helpers";

function putAlias(who: Caller, agentId: string, body: unknown): Promise<Response> {
  return callJson(`/v1/agents/${agentId}/aliases/production`, "PUT", body, who.headers);
}

/** An agent at version 2, each version on a model of its own. */
async function twoVersions(who: Caller, stable: string, canary: string): Promise<Agent> {
  const agent = await createAgent(who, { name: uniqueKey("canaried"), model: stable });
  expect((await patchAgent(who, agent.id, { model: canary })).status).toBe(200);
  return agent;
}

async function startSession(who: Caller, body: Record<string, unknown>): Promise<Session> {
  const res = await callJson("/v1/sessions", "POST", body, who.headers);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as Session;
}

async function errorPaths(res: Response): Promise<string[]> {
  expect(res.status).toBe(400);
  return ((await res.json()) as { errors: { path: string }[] }).errors.map((e) => e.path);
}

describe("canary aliases: routing", () => {
  it("splits 20 end users at 50% by hash and keeps each on one version across sessions and chats", async () => {
    const tenantId = freshTenant("canary-split");
    const author = await backend(tenantId);
    const [stable, canary] = [mockModel(uniqueKey("stable")), mockModel(uniqueKey("canary"))];
    const agent = await twoVersions(author, stable.key, canary.key);
    expect((await putAlias(author, agent.id, { version: 1, canary: { version: 2, percent: 50 } })).status).toBe(200);
    for (let i = 0; i < 20; i++) {
      await stable.script({ reply: { content: [text("from v1")] } });
      await canary.script({ reply: { content: [text("from v2")] } });
    }

    const arms = new Map<string, boolean>();
    for (let i = 0; i < 20; i++) {
      const user = await endUser(author, `user-${i}`);
      const versions: number[] = [];
      for (let s = 0; s < 2; s++) {
        const session = await startSession(user, { agent: `${agent.id}@production` });
        expect(session.agent).toMatchObject({ id: agent.id, alias: "production" });
        expect(session.agent!.canary).toBe(session.agent!.version === 2);
        versions.push(session.agent!.version);
      }
      // A chat from the agent's serving alias goes the same way.
      const chatId = uniqueKey("chat");
      const res = await callJson(
        `/v1/agents/${agent.id}/chat`,
        "POST",
        { id: chatId, messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "hi" }] }], trigger: "submit-message" },
        user.headers,
      );
      expect(res.status).toBe(200);
      await res.text();
      const chat = await getJson<Session>(
        user,
        `/v1/sessions/${await chatSessionId({ tenantId, subject: user.subject }, agent.id, chatId)}`,
      );
      versions.push(chat.agent!.version);
      expect(new Set(versions).size, `user-${i} saw versions ${versions.join(", ")}`).toBe(1);
      // The arm is the one the hash names: the same rule, computed here.
      const bucket = await canaryBucket(routingKey(user.subject, true, `${agent.id}@production`, "ignored"));
      expect(versions[0] === 2, `user-${i}`).toBe(bucket < 50);
      arms.set(user.subject, versions[0] === 2);
    }
    const onCanary = [...arms.values()].filter(Boolean).length;
    expect(onCanary).toBeGreaterThan(0);
    expect(onCanary).toBeLessThan(20);
  });

  it("routes each session of a backend's JWT on its own, and leaves a version or a plain alias alone", async () => {
    const who = await caller(freshTenant("canary-backend"), ["sessions:read", "sessions:write", "agents:write"]);
    const agent = await twoVersions(who, "stable-model", "canary-model");
    expect((await putAlias(who, agent.id, { version: 1, canary: { version: 2, percent: 50 } })).status).toBe(200);
    const seen = new Set<number>();
    for (let i = 0; i < 16; i++) seen.add((await startSession(who, { agent: `${agent.id}@production` })).agent!.version);
    expect([...seen].sort()).toEqual([1, 2]);
    expect((await startSession(who, { agent: `${agent.id}@1` })).agent).toEqual({ id: agent.id, version: 1 });
    expect((await putAlias(who, agent.id, { version: 1 })).status).toBe(200);
    expect((await startSession(who, { agent: `${agent.id}@production` })).agent).toEqual({ id: agent.id, version: 1 });
  });
});

describe("canary aliases: online scoring and rollback", () => {
  it("rolls a failing canary back after its minimum runs, with the audit entry and the webhook", async () => {
    const tenantId = freshTenant("canary-rollback");
    const who = await caller(tenantId, ["sessions:read", "sessions:write", "agents:write", "tenant:admin"]);
    const hook = mockHook(uniqueKey("rollbacks"));
    await registerEndpoint(who, hook.url, ["agent.canary_rolled_back"]);
    const [stable, canary] = [mockModel(uniqueKey("stable")), mockModel(uniqueKey("canary"))];
    const agent = await twoVersions(who, stable.key, canary.key);
    const rollback = { scorers: [{ type: "contains", value: "refund" }], min_score: 0.5, min_runs: 3 };
    expect((await putAlias(who, agent.id, { version: 1, canary: { version: 2, percent: 50, rollback } })).status).toBe(200);
    for (let i = 0; i < 12; i++) {
      await stable.script({ reply: { content: [text("your refund is on its way")] } });
      await canary.script({ reply: { content: [text("no idea")] } });
    }

    let canaryRuns = 0;
    let counted: Agent | undefined;
    while (canaryRuns < 3) {
      const session = await startSession(who, { agent: `${agent.id}@production`, input: "where is my refund?" });
      await waitForStatus(who, session.id, ["done"]);
      if (!session.agent!.canary) continue;
      canaryRuns++;
      if (canaryRuns === 2)
        counted = await eventually(async () => {
          const now = await getJson<Agent>(who, `/v1/agents/${agent.id}`);
          return now.canaries.production?.runs === 2 ? now : undefined;
        }, "two canary runs counted");
    }
    // Below its minimum of runs the rule waits, however bad the scores.
    expect(counted!.canaries.production).toMatchObject({ version: 2, percent: 50, runs: 2, failures: 2, mean_score: 0, failure_rate: 1 });

    const after = await eventually(async () => {
      const now = await getJson<Agent>(who, `/v1/agents/${agent.id}`);
      return now.canaries.production === undefined ? now : undefined;
    }, "the canary rolled back");
    expect(after.aliases.production).toBe(1);

    const [delivered] = await hook.waitForRequests(1);
    expect(delivered!.body).toMatchObject({
      type: "agent.canary_rolled_back",
      tenant_id: tenantId,
      agent: { id: agent.id, alias: "production", version: 1, canary_version: 2, reason: "min_score", runs: 3, failures: 3, mean_score: 0 },
    });
    const entry = (await tenantLog(who.headers)).find((e) => e.action === "agent.canary_rolled_back");
    expect(entry).toMatchObject({
      target: { type: "agent", id: agent.id },
      details: { alias: "production", canary_version: 2, runs: 3, failures: 3, mean_score: 0, min_runs: 3, min_score: 0.5 },
    });
    // Every new session runs the alias's own version again.
    for (let i = 0; i < 4; i++) expect((await startSession(who, { agent: `${agent.id}@production` })).agent!.version).toBe(1);
  });
});

describe("canary aliases: every run's end counted", () => {
  it("counts a run whose queued successor started in the transaction that ended it", async () => {
    const who = await caller(freshTenant("canary-queued"), ["sessions:read", "sessions:write", "agents:write"]);
    const [stable, canary] = [mockModel(uniqueKey("stable")), mockModel(uniqueKey("canary"))];
    const agent = await twoVersions(who, stable.key, canary.key);
    expect((await putAlias(who, agent.id, { version: 1, canary: { version: 2, percent: 99 } })).status).toBe(200);
    for (let i = 0; i < 4; i++) await stable.script({ reply: { content: [text("from v1")] } });
    await canary.script({ delay_ms: 700, reply: { content: [text("first")] } }, { reply: { content: [text("second")] } });
    let session = await startSession(who, { agent: `${agent.id}@production`, input: "one" });
    while (!session.agent!.canary) session = await startSession(who, { agent: `${agent.id}@production`, input: "one" });
    await canary.waitForRequests(1);
    // Queued while the first run goes: it starts the moment the first ends, before any report.
    const queued = await post(who, `/v1/sessions/${session.id}/messages`, { input: "two", if_running: "enqueue" });
    expect(queued.status).toBe(202);
    await canary.waitForRequests(2);
    await waitForStatus(who, session.id, ["done"]);
    const counted = await eventually(async () => {
      const now = await getJson<Agent>(who, `/v1/agents/${agent.id}`);
      return (now.canaries.production?.runs ?? 0) >= 2 ? now : undefined;
    }, "both runs counted");
    expect(counted.canaries.production).toMatchObject({ runs: 2, failures: 0 });
  });
});

describe("canary aliases: promotion and bad input", () => {
  it("promotes the canary (audited) and refuses a promotion with none", async () => {
    const who = await caller(freshTenant("canary-promote"), ["sessions:read", "sessions:write", "agents:write", "tenant:admin"]);
    const agent = await twoVersions(who, "stable-model", "canary-model");
    expect((await putAlias(who, agent.id, { version: 1, canary: { version: 2, percent: 20 } })).status).toBe(200);
    // A promotion that expects another canary than the live one changes nothing.
    const stale = await call(`/v1/agents/${agent.id}/aliases/production/promote?expected_version=3`, {
      method: "POST",
      headers: who.headers,
    });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { detail: string }).detail).toMatch(/version 2, not the expected 3/);
    expect(
      await errorPaths(
        await call(`/v1/agents/${agent.id}/aliases/production/promote?expected_version=0x2`, { method: "POST", headers: who.headers }),
      ),
    ).toEqual(["query.expected_version"]);
    const promoted = await call(`/v1/agents/${agent.id}/aliases/production/promote?expected_version=2`, {
      method: "POST",
      headers: who.headers,
    });
    expect(promoted.status).toBe(200);
    const body = (await promoted.json()) as Agent;
    expect(body.aliases.production).toBe(2);
    expect(body.canaries).toEqual({});
    const again = await call(`/v1/agents/${agent.id}/aliases/production/promote`, { method: "POST", headers: who.headers });
    expect(again.status).toBe(409);
    const entry = (await tenantLog(who.headers)).find((e) => e.action === "agent.canary_promoted");
    expect(entry?.details).toMatchObject({ alias: "production", version: 2, previous_version: 1, runs: 0 });
  });

  it("refuses a bad canary with the path of its field", async () => {
    const who = await caller(freshTenant("canary-bad"), ["sessions:read", "sessions:write", "agents:write"]);
    const agent = await twoVersions(who, "stable-model", "canary-model");
    expect(await errorPaths(await putAlias(who, agent.id, { version: 1, canary: { version: 2, percent: 0 } }))).toEqual([
      "body.canary.percent",
    ]);
    expect(await errorPaths(await putAlias(who, agent.id, { version: 1, canary: { version: 2, percent: 100 } }))).toEqual([
      "body.canary.percent",
    ]);
    expect(await errorPaths(await putAlias(who, agent.id, { version: 2, canary: { version: 2, percent: 10 } }))).toEqual([
      "body.canary.version",
    ]);
    expect(await errorPaths(await putAlias(who, agent.id, { version: 1, canary: { version: 9, percent: 10 } }))).toEqual([
      "body.canary.version",
    ]);
    const badRegex = { scorers: [{ type: "regex", pattern: "(a" }], min_score: 0.5, min_runs: 5 };
    expect(
      await errorPaths(await putAlias(who, agent.id, { version: 1, canary: { version: 2, percent: 10, rollback: badRegex } })),
    ).toEqual(["body.canary.rollback.scorers.0.pattern"]);
    const judge = { scorers: [{ type: "judge", model: "m", rubric: "r" }], min_score: 0.5, min_runs: 5 };
    expect(await errorPaths(await putAlias(who, agent.id, { version: 1, canary: { version: 2, percent: 10, rollback: judge } }))).toEqual([
      "body.canary.rollback.scorers.0.type",
    ]);
    const noThreshold = { scorers: [], min_runs: 5 };
    expect(
      await errorPaths(await putAlias(who, agent.id, { version: 1, canary: { version: 2, percent: 10, rollback: noThreshold } })),
    ).toEqual(["body.canary.rollback.min_score"]);
    // Nothing was set by any of them.
    expect((await getJson<Agent>(who, `/v1/agents/${agent.id}`)).canaries).toEqual({});
    expect((await archive(who, agent.id)).status).toBe(204);
    expect((await putAlias(who, agent.id, { version: 1, canary: { version: 2, percent: 10 } })).status).toBe(409);
  });
});
