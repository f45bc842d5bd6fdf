/**
 * Agents through the public API: created once, sessions started from the latest version, a
 * version number or an alias; PATCH makes versions while running sessions keep theirs; moving an
 * alias back is the rollback; archival stops new sessions only; an export imports elsewhere.
 */
import { describe, expect, it } from "vitest";
import { call, callJson, readProblem } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { freshTenant } from "../../support/tokens";
import { type Caller, caller, createSession, getJson, OBJECT_SCHEMA, post, text, toolUse, waitForStatus } from "../sessions/helpers";
import { type Agent, type AgentVersion, archive, author, createAgent, patchAgent, putAlias, systemOf } from "./helpers";
import type { Session } from "../../../src/session-config/types";

const ASK = { type: "client", name: "ask_user", description: "Ask the user", input_schema: OBJECT_SCHEMA };

/** A model that answers `count` runs with "ok". */
async function answering(count = 1) {
  const model = mockModel(uniqueKey("model"));
  for (let i = 0; i < count; i++) await model.script({ reply: { content: [text("ok")] } });
  return model;
}

async function runFrom(who: Caller, agent: string, extra: Record<string, unknown> = {}): Promise<Session> {
  const session = await createSession(who, { agent, input: "hello", ...extra });
  return waitForStatus(who, session.id, ["done", "failed"]);
}

describe("agents: versions, aliases and sessions", () => {
  it("creates version 1 and starts sessions from the latest, from @1 and from an alias", async () => {
    const who = await author();
    const model = await answering(3);
    const agent = await createAgent(who, { name: "triage", description: "Sorts tickets", model: model.key, system: "You are v1." });
    expect(agent).toMatchObject({
      name: "triage",
      description: "Sorts tickets",
      version: 1,
      aliases: {},
      archived: false,
      created_by: who.subject,
    });
    expect(agent.id).toMatch(/^agt_/);
    expect(agent.definition).toEqual({ name: "triage", description: "Sorts tickets", model: model.key, system: "You are v1." });
    expect((await putAlias(who, agent.id, "production", 1)).status).toBe(200);

    for (const ref of [agent.id, `${agent.id}@1`, `${agent.id}@production`]) {
      const session = await runFrom(who, ref);
      expect(session.status).toBe("done");
      expect(session.agent).toEqual({ id: agent.id, version: 1 });
      expect(session.system).toBe("You are v1.");
      expect(session.model).toBe(model.key);
    }
    const requests = await model.requests();
    expect(requests.map((request) => systemOf(request.body))).toEqual(["You are v1.", "You are v1.", "You are v1."]);
  });

  it("makes version 2 on PATCH while a session of version 1 finishes on version 1", async () => {
    const who = await author();
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [toolUse("toolu_a1", "ask_user")] } }, { reply: { content: [text("done with v1")] } });
    const agent = await createAgent(who, { name: "asker", model: model.key, system: "You are v1.", tools: [ASK] });
    const first = await createSession(who, { agent: agent.id, input: "start" });
    await waitForStatus(who, first.id, ["waiting_tool_output"]);

    const changed = await patchAgent(who, agent.id, { system: "You are v2." });
    expect(changed.status).toBe(200);
    const v2 = (await changed.json()) as Agent;
    expect(v2.version).toBe(2);
    expect(v2.definition.system).toBe("You are v2.");

    expect((await post(who, `/v1/sessions/${first.id}/tool-calls/toolu_a1/output`, { output: "blue" })).status).toBe(200);
    const finished = await waitForStatus(who, first.id, ["done", "failed"]);
    expect(finished).toMatchObject({ status: "done", agent: { id: agent.id, version: 1 }, system: "You are v1." });
    const requests = await model.requests();
    expect(requests.map((request) => systemOf(request.body))).toEqual(["You are v1.", "You are v1."]);

    const versions = await getJson<{ data: AgentVersion[] }>(who, `/v1/agents/${agent.id}/versions`);
    expect(versions.data.map((version) => [version.version, version.definition.system])).toEqual([
      [2, "You are v2."],
      [1, "You are v1."],
    ]);
  });

  it("rolls back by moving the alias: the next session runs version 1 again", async () => {
    const who = await author();
    const model = await answering(3);
    const agent = await createAgent(who, { name: "roller", model: model.key, system: "one" });
    await patchAgent(who, agent.id, { system: "two" });
    expect((await putAlias(who, agent.id, "production", 2)).status).toBe(200);
    expect((await runFrom(who, `${agent.id}@production`)).agent).toEqual({ id: agent.id, version: 2 });

    const moved = await putAlias(who, agent.id, "production", 1);
    expect(((await moved.json()) as Agent).aliases).toEqual({ production: 1 });
    const after = await runFrom(who, `${agent.id}@production`);
    expect(after).toMatchObject({ agent: { id: agent.id, version: 1 }, system: "one" });
    // The latest stays 2: an alias moves alone.
    expect((await runFrom(who, agent.id)).agent).toEqual({ id: agent.id, version: 2 });
  });

  it("makes no new version for a PATCH that changes nothing", async () => {
    const who = await author();
    const agent = await createAgent(who, { name: "still", system: "same", metadata: { a: "1", b: "2" } });
    for (const body of [{}, { system: "same" }, { metadata: { b: "2", a: "1" } }]) {
      const res = await patchAgent(who, agent.id, body);
      expect(res.status).toBe(200);
      expect(((await res.json()) as Agent).version).toBe(1);
    }
    const cleared = (await (await patchAgent(who, agent.id, { system: null })).json()) as Agent;
    expect(cleared.version).toBe(2);
    expect(cleared.definition).toEqual({ name: "still", metadata: { a: "1", b: "2" } });
  });

  it("archives: new sessions, versions and aliases are refused, a running session finishes, the name is free again", async () => {
    const who = await author();
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [toolUse("toolu_b1", "ask_user")] } }, { reply: { content: [text("finished")] } });
    const agent = await createAgent(who, { name: "retiring", model: model.key, tools: [ASK] });
    const running = await createSession(who, { agent: agent.id, input: "go" });
    await waitForStatus(who, running.id, ["waiting_tool_output"]);

    expect((await archive(who, agent.id)).status).toBe(204);
    expect((await archive(who, agent.id)).status).toBe(204);
    for (const ref of [agent.id, `${agent.id}@1`]) {
      const res = await callJson("/v1/sessions", "POST", { agent: ref, input: "again" }, who.headers);
      expect(res.status).toBe(409);
      expect((await readProblem(res)).code).toBe("conflict");
    }
    expect((await patchAgent(who, agent.id, { system: "x" })).status).toBe(409);
    expect((await putAlias(who, agent.id, "production", 1)).status).toBe(409);
    expect((await call(`/v1/agents/${agent.id}/aliases/stable`, { method: "DELETE", headers: who.headers })).status).toBe(409);
    expect(((await getJson<Agent>(who, `/v1/agents/${agent.id}`)) as Agent).archived).toBe(true);

    expect((await post(who, `/v1/sessions/${running.id}/tool-calls/toolu_b1/output`, { output: "yes" })).status).toBe(200);
    expect((await waitForStatus(who, running.id, ["done", "failed"])).status).toBe("done");

    const listed = await getJson<{ data: Agent[] }>(who, "/v1/agents?name=retiring");
    expect(listed.data).toEqual([]);
    const all = await getJson<{ data: Agent[] }>(who, "/v1/agents?name=retiring&include_archived=true");
    expect(all.data.map((item) => item.id)).toEqual([agent.id]);
    const successor = await createAgent(who, { name: "retiring" });
    expect(successor.id).not.toBe(agent.id);
  });

  it("exports a version and imports it into another tenant unchanged", async () => {
    const source = await author();
    const target = await author();
    const definition = {
      name: "exported",
      description: "Moves between environments",
      system: "Be exact.",
      tools: [{ type: "builtin", name: "get_time", requires_approval: true, approval_timeout_seconds: 60 }, ASK],
      limits: { max_steps_per_run: 5 },
      context: { strategy: "last_messages", last_messages: 10 },
      output_schema: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] },
      metadata: { team: "support" },
    };
    const agent = await createAgent(source, definition);
    const exported = await getJson<AgentVersion>(source, `/v1/agents/${agent.id}/versions/1`);
    expect(exported.definition).toEqual(definition);
    const imported = await createAgent(target, exported.definition);
    expect(imported.definition).toEqual(definition);
    const again = await getJson<AgentVersion>(target, `/v1/agents/${imported.id}/versions/1`);
    expect(again.definition).toEqual(exported.definition);
  });

  it("lists a tenant's sessions by agent", async () => {
    const who = await author();
    const model = await answering(3);
    const one = await createAgent(who, { name: "lister-one", model: model.key });
    const two = await createAgent(who, { name: "lister-two", model: model.key });
    const a = await runFrom(who, one.id);
    const b = await runFrom(who, two.id);
    await runFrom(who, `${one.id}@1`);
    const page = await getJson<{ data: { id: string; agent: unknown }[] }>(who, `/v1/sessions?agent_id=${two.id}`);
    expect(page.data).toEqual([expect.objectContaining({ id: b.id, agent: { id: two.id, version: 1 } })]);
    const ofOne = await getJson<{ data: { id: string }[] }>(who, `/v1/sessions?agent_id=${one.id}`);
    expect(ofOne.data).toHaveLength(2);
    expect(ofOne.data.map((session) => session.id)).toContain(a.id);
  });

  it("merges metadata over the agent's, lowers its limits, and replaces notify_url and output_schema", async () => {
    const who = await author();
    const agent = await createAgent(who, { name: "merger", metadata: { team: "a", tier: "gold" }, limits: { max_steps_per_run: 5 } });
    const session = await createSession(who, {
      agent: agent.id,
      metadata: { tier: "silver", ticket: "T-1" },
      limits: { max_steps_per_run: 3 },
    });
    expect(session.metadata).toEqual({ team: "a", tier: "silver", ticket: "T-1" });
    expect(session.limits.max_steps_per_run).toBe(3);
    const raised = await callJson("/v1/sessions", "POST", { agent: agent.id, limits: { max_steps_per_run: 6 } }, who.headers);
    expect(raised.status).toBe(400);
    expect((await readProblem(raised)).errors).toEqual([
      { path: "body.limits.max_steps_per_run", message: "Must not exceed the agent's limit of 5." },
    ]);
  });
});

describe("agents: bad input", () => {
  it("answers unknown agents, versions and aliases with 404, and another tenant's agent too", async () => {
    const who = await author();
    const other = await author();
    const agent = await createAgent(who, { name: "mine" });
    const missing = "agt_AAAAAAAAAAAAAAAAAAAAAAAA";
    for (const [body, detail] of [
      [{ agent: missing }, "No such agent."],
      [{ agent: `${agent.id}@7` }, "The agent has no version 7."],
      [{ agent: `${agent.id}@canary` }, 'The agent has no alias "canary".'],
    ] as const) {
      const res = await callJson("/v1/sessions", "POST", body, who.headers);
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect((await readProblem(res)).detail).toBe(detail);
    }
    for (const path of [
      `/v1/agents/${agent.id}`,
      `/v1/agents/${agent.id}/versions`,
      `/v1/agents/${agent.id}/versions/1`,
      "/v1/agents/not-an-id",
      `/v1/agents/${agent.id}/versions/2`,
    ]) {
      const res = await call(path, { headers: (path.includes("not-an-id") || path.endsWith("/2") ? who : other).headers });
      expect(res.status, path).toBe(404);
    }
    expect((await callJson("/v1/sessions", "POST", { agent: agent.id }, other.headers)).status).toBe(404);
    expect((await patchAgent(other, agent.id, { system: "taken over" })).status).toBe(404);
    expect((await putAlias(other, agent.id, "production", 1)).status).toBe(404);
    expect((await archive(other, agent.id)).status).toBe(404);
    expect((await getJson<{ data: Agent[] }>(other, "/v1/agents")).data).toEqual([]);
  });

  it("refuses a bad alias name, an alias to a missing version, and an unknown alias on delete", async () => {
    const who = await author();
    const agent = await createAgent(who, { name: "aliased" });
    for (const alias of ["Production", "7", "a".repeat(33), "pro%20d"]) {
      const res = await putAlias(who, agent.id, alias, 1);
      expect(res.status, alias).toBe(400);
    }
    const res = await putAlias(who, agent.id, "production", 2);
    expect(res.status).toBe(404);
    expect((await readProblem(res)).detail).toBe("The agent has no version 2.");
    expect((await call(`/v1/agents/${agent.id}/aliases/production`, { method: "DELETE", headers: who.headers })).status).toBe(404);
    await putAlias(who, agent.id, "production", 1);
    expect((await call(`/v1/agents/${agent.id}/aliases/production`, { method: "DELETE", headers: who.headers })).status).toBe(204);
    expect((await callJson("/v1/sessions", "POST", { agent: `${agent.id}@production` }, who.headers)).status).toBe(404);
  });

  it("answers a name another live agent holds with 409, on create and on rename", async () => {
    const who = await author();
    const first = await createAgent(who, { name: "taken" });
    const second = await createAgent(who, { name: "free" });
    const res = await callJson("/v1/agents", "POST", { name: "taken" }, who.headers);
    expect(res.status).toBe(409);
    expect((await readProblem(res)).detail).toBe('Another live agent is named "taken".');
    expect((await patchAgent(who, second.id, { name: "taken" })).status).toBe(409);
    expect((await patchAgent(who, first.id, { name: "renamed" })).status).toBe(200);
    expect((await patchAgent(who, second.id, { name: "taken" })).status).toBe(200);
  });

  it("refuses a definition a session body would refuse, with the same errors paths", async () => {
    const who = await author();
    const bodies: Record<string, unknown>[] = [
      { tools: [{ type: "webhook", name: "hook", description: "d", input_schema: OBJECT_SCHEMA, url: "ftp://example.com/hook" }] },
      { tools: [{ type: "a2a", name: "remote", description: "d", agent_card_url: "ftp://agents.example.com/card.json" }] },
      { tools: [{ type: "a2a", name: "remote", agent_card_url: "https://agents.example.com/card.json", idempotent: "yes" }] },
      { limits: { max_steps_per_run: 1_000_000 } },
      { model: "not a model id" },
      {
        tools: [
          {
            type: "client",
            name: "c",
            description: "d",
            input_schema: { type: "object", properties: { q: { type: "string", pattern: "(a)\\1" } } },
          },
        ],
      },
      { notify_url: "not a url" },
      { context: { strategy: "auto", last_messages: 3 } },
    ];
    for (const body of bodies) {
      const asSession = await callJson("/v1/sessions", "POST", body, who.headers);
      const asAgent = await callJson("/v1/agents", "POST", { name: "bad", ...body }, who.headers);
      expect(asSession.status, JSON.stringify(body)).toBe(400);
      expect(asAgent.status, JSON.stringify(body)).toBe(400);
      expect((await readProblem(asAgent)).errors, JSON.stringify(body)).toEqual((await readProblem(asSession)).errors);
    }
    for (const name of ["", "has space", "x".repeat(65)]) {
      expect((await callJson("/v1/agents", "POST", { name }, who.headers)).status, name).toBe(400);
    }
  });

  it("refuses a session's own configuration beside agent", async () => {
    const who = await author();
    const agent = await createAgent(who, { name: "owner" });
    for (const field of ["system", "model", "tools", "context"]) {
      const value = field === "tools" ? [] : field === "context" ? { strategy: "auto" } : "x";
      const res = await callJson("/v1/sessions", "POST", { agent: agent.id, [field]: value }, who.headers);
      expect(res.status, field).toBe(400);
      expect((await readProblem(res)).errors, field).toEqual([
        { path: `body.${field}`, message: "Not allowed beside `agent`: the agent's definition sets it." },
      ]);
    }
    for (const ref of ["agt_short", `${agent.id}@`, `${agent.id}@Prod`, `${agent.id}@0`, "ses_AAAAAAAAAAAAAAAAAAAAAAAA"]) {
      const res = await callJson("/v1/sessions", "POST", { agent: ref }, who.headers);
      expect(res.status, ref).toBe(400);
      expect((await readProblem(res)).errors?.[0]?.path, ref).toBe("body.agent");
    }
  });

  it("needs agents:write to change agents and sessions:read to read them; tenant:admin implies agents:write", async () => {
    const tenantId = freshTenant();
    const writer = await caller(tenantId, ["sessions:read", "sessions:write"]);
    expect((await callJson("/v1/agents", "POST", { name: "nope" }, writer.headers)).status).toBe(403);
    const admin = await caller(tenantId, ["tenant:admin"], "admin-1");
    const agent = await createAgent(admin, { name: "by-admin" });
    expect((await patchAgent(writer, agent.id, { system: "x" })).status).toBe(403);
    expect((await archive(writer, agent.id)).status).toBe(403);
    // A reader who did not create it sees it: agents belong to the tenant.
    expect((await getJson<Agent>(writer, `/v1/agents/${agent.id}`)).id).toBe(agent.id);
    const blind = await caller(tenantId, ["sessions:write"], "writer-only");
    expect((await call(`/v1/agents/${agent.id}`, { headers: blind.headers })).status).toBe(403);
  });
});

describe("agents: MCP header values", () => {
  const mcp = (value: string) => ({ type: "mcp", name: "docs", url: "https://mcp.example.com/mcp", headers: { Authorization: value } });

  it("masks them in every answer, refuses the mask as a new value, and keeps the stored one on PATCH", async () => {
    const who = await author();
    const secret = "Bearer sk-agent-secret-0123456789";
    const agent = await createAgent(who, { name: "with-mcp", tools: [mcp(secret)] });
    expect(JSON.stringify(agent)).not.toContain("sk-agent-secret");
    const exported = await getJson<AgentVersion>(who, `/v1/agents/${agent.id}/versions/1`);
    expect(exported.definition.tools).toEqual([mcp("********")]);

    const imported = await callJson("/v1/agents", "POST", { ...exported.definition, name: "copy" }, who.headers);
    expect(imported.status).toBe(400);
    expect((await readProblem(imported)).errors).toEqual([
      { path: "body.tools.0.headers.Authorization", message: "Give the header's value: ******** is how answers mask it." },
    ]);

    // Sent back as read, with one change elsewhere: the stored value stays.
    const changed = await patchAgent(who, agent.id, { ...exported.definition, system: "now with a prompt" });
    expect(changed.status).toBe(200);
    expect(((await changed.json()) as Agent).version).toBe(2);
    const session = await createSession(who, { agent: agent.id });
    expect(session.agent).toEqual({ id: agent.id, version: 2 });
    const unchanged = await patchAgent(who, agent.id, { tools: [mcp("********")] });
    expect(((await unchanged.json()) as Agent).version).toBe(2);
    const rotated = await patchAgent(who, agent.id, { tools: [mcp("Bearer sk-rotated-0123456789")] });
    expect(((await rotated.json()) as Agent).version).toBe(3);
  });

  it("never sends a stored value to another URL: a masked value beside a changed URL is refused", async () => {
    const who = await author();
    const agent = await createAgent(who, { name: "mcp-moved", tools: [mcp("Bearer sk-stay-here-0123456789")] });
    const moved = await patchAgent(who, agent.id, { tools: [{ ...mcp("********"), url: "https://attacker.example/mcp" }] });
    expect(moved.status).toBe(400);
    expect((await readProblem(moved)).errors).toEqual([
      {
        path: "body.tools.0.headers.Authorization",
        message: "Give the header's value again: the server's URL changed, and a stored value only goes to the URL it was given for.",
      },
    ]);
    // The same URL spelled with another case of host still is the same server.
    const same = await patchAgent(who, agent.id, { system: "x", tools: [{ ...mcp("********"), url: "https://MCP.example.com/mcp" }] });
    expect(same.status).toBe(200);
  });
});
