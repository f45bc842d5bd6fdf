/**
 * One auth model, every protocol: a session started through REST, the chat transport, MCP, A2A or AG-UI by
 * one principal (an API key, a JWT user, an end user's token) is seen through each protocol that
 * can name it by its owner alone; every other principal (another end user of the tenant, a key
 * of another tenant, the other owners) sees none of it. Where protocols share an id (a chat id,
 * an A2A contextId, an AG-UI threadId), the same principal reaches the same session through each of
 * them, and another principal its own.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { tenantIndexStub } from "../../src/objects";
import { chatSessionId } from "../../src/chat/chat-session";
import { call, callJson } from "../support/api";
import { mockModel, uniqueKey } from "../support/mock-client";
import { bearer, freshTenant } from "../support/tokens";
import { createAgent, type Agent } from "./agents/helpers";
import { backend, endUser } from "./end-users/helpers";
import { type Caller, waitForStatus } from "./sessions/helpers";

type PrincipalName = "api_key" | "jwt_user" | "end_user_a" | "end_user_b" | "other_tenant_key" | "admin";
type Principals = Record<PrincipalName, Caller>;
const PRINCIPALS: readonly PrincipalName[] = ["api_key", "jwt_user", "end_user_a", "end_user_b", "other_tenant_key", "admin"];
/**
 * A tenant admin (`tenant:admin`) reads every session of its tenant by id over REST (sessions:read
 * of all), but a chat id, an A2A contextId or an AG-UI threadId is always the caller's own
 * conversation: an admin reaches none of another principal's sessions through them.
 */
const SEES_ALL_BY_ID: ReadonlySet<PrincipalName> = new Set(["admin"]);
/** The principals a session is started by; end user B and the other tenant's key are the strangers of every row. */
const OWNERS: readonly PrincipalName[] = ["api_key", "jwt_user", "end_user_a"];

/** An API key of `tenantId` as a backend holds one: it starts sessions and mints end-user tokens. */
async function apiKey(tenantId: string): Promise<Caller> {
  const admin = await bearer({ tenantId, scopes: ["tenant:admin"], subject: "admin", expiresIn: 3600 });
  const res = await callJson(
    "/v1/api-keys",
    "POST",
    { name: "backend", scopes: ["sessions:read", "sessions:write", "end_users:issue"] },
    admin,
  );
  expect(res.status).toBe(201);
  const { key, key_id: keyId } = (await res.json()) as { key: string; key_id: string };
  return { tenantId, subject: `key:${keyId}`, headers: { Authorization: `Bearer ${key}` } };
}

/** A started conversation: the session's id, and the id the protocol named it by (a chat id), if any. */
interface Started {
  sessionId: string;
  conversationId: string | null;
  said: string;
}

interface Protocol {
  /** Starts a session of `agent` as `who`, saying `said`; null where the protocol refuses the principal (403). */
  start(who: Caller, agent: Agent, said: string): Promise<Started | null>;
  /** Whether `who` sees the started session through this protocol; null where the protocol has no way to name it. */
  sees(who: Caller, agent: Agent, started: Started): Promise<boolean | null>;
}

const ACCEPT_MCP = "application/json, text/event-stream";

/** The JSON-RPC message of an MCP answer: its JSON body, or the last `data:` of its event stream. */
async function mcpMessage(res: Response): Promise<{ result?: { _meta?: { session_id?: string }; isError?: boolean } }> {
  const body = await res.text();
  if (!res.headers.get("content-type")?.startsWith("text/event-stream")) return JSON.parse(body);
  const data = body.split("\n").filter((line) => line.startsWith("data: "));
  return JSON.parse(data.at(-1)!.slice(6));
}

const rest: Protocol = {
  async start(who, agent, said) {
    const res = await callJson("/v1/sessions", "POST", { agent: agent.id, input: said }, who.headers);
    expect(res.status, await res.clone().text()).toBe(201);
    const { id } = (await res.json()) as { id: string };
    await waitForStatus(who, id, ["done"]);
    return { sessionId: id, conversationId: null, said };
  },
  async sees(who, _agent, started) {
    const session = await call(`/v1/sessions/${started.sessionId}`, { headers: who.headers });
    const messages = await call(`/v1/sessions/${started.sessionId}/messages`, { headers: who.headers });
    expect([200, 404]).toContain(session.status);
    expect(messages.status).toBe(session.status);
    return session.status === 200 && (await messages.text()).includes(started.said);
  },
};

const chat: Protocol = {
  async start(who, agent, said) {
    const chatId = uniqueKey("chat");
    const message = { id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text: said }] };
    const res = await callJson(
      `/v1/agents/${agent.id}/chat`,
      "POST",
      { id: chatId, messages: [message], trigger: "submit-message" },
      who.headers,
    );
    expect(res.status, await res.clone().text()).toBe(200);
    await res.text();
    return { sessionId: await chatSessionId(who, agent.id, chatId), conversationId: chatId, said };
  },
  async sees(who, agent, started) {
    if (started.conversationId === null) return null;
    const res = await call(`/v1/agents/${agent.id}/chat/${started.conversationId}/messages`, { headers: who.headers });
    expect([200, 404]).toContain(res.status);
    return res.status === 200 && (await res.text()).includes(started.said);
  },
};

const mcp: Protocol = {
  async start(who, agent, said) {
    const res = await call("/v1/mcp", {
      method: "POST",
      headers: { ...who.headers, "content-type": "application/json", accept: ACCEPT_MCP },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: agent.name, arguments: { input: said } } }),
    });
    // The MCP server lists the tenant's agents, which an end user may not read: its token is refused there, as on GET /v1/agents.
    if (who.subject.startsWith("end_user:")) {
      expect(res.status).toBe(403);
      return null;
    }
    expect(res.status).toBe(200);
    const answer = await mcpMessage(res);
    expect(answer.result?.isError, JSON.stringify(answer)).toBeFalsy();
    return { sessionId: answer.result!._meta!.session_id!, conversationId: null, said };
  },
  // Out of the read table: MCP names no session. Its only tool per agent (tools/call) starts a new
  // session each time and takes no session, chat or context id, so no principal can aim it at another's.
  sees: async () => null,
};

/** The tenant the test's agent belongs to. */
let agentTenant = "";

/** An A2A JSON-RPC call of `method` on `agent`'s endpoint. */
async function a2aCall(who: Caller, agent: Agent, method: string, params: unknown) {
  const res = await callJson(`/v1/agents/${agent.id}/a2a`, "POST", { jsonrpc: "2.0", id: "1", method, params }, who.headers);
  // Another tenant's caller does not find the agent at all.
  if (res.status === 404 && who.tenantId !== agentTenant) return {};
  expect(res.status).toBe(200);
  // A sent message answers `{ task }`; a task read answers the task itself.
  return (await res.json()) as { result?: { task?: { id: string; contextId: string }; contextId?: string }; error?: { code: number } };
}

const a2aMessage = (contextId: string, text: string) => ({
  message: { messageId: crypto.randomUUID(), role: "ROLE_USER", contextId, parts: [{ text }] },
});

const a2a: Protocol = {
  async start(who, agent, said) {
    const contextId = uniqueKey("ctx");
    const answer = await a2aCall(who, agent, "SendMessage", a2aMessage(contextId, said));
    expect(answer.result?.task?.contextId, JSON.stringify(answer)).toBe(contextId);
    return { sessionId: await chatSessionId(who, agent.id, contextId), conversationId: contextId, said };
  },
  async sees(who, agent, started) {
    if (started.conversationId === null) return null;
    // The task of the session's first run: `<seq of its input>.<contextId>`.
    const answer = await a2aCall(who, agent, "GetTask", { id: `1.${started.conversationId}`, historyLength: 10 });
    if (answer.error) expect(answer.error.code).toBe(-32001);
    // Reached: the task of that context, or anything that carries the owner's words.
    return answer.result?.contextId === started.conversationId || JSON.stringify(answer).includes(started.said);
  },
};

/** One AG-UI run on `threadId` saying `text`; the stream's text. */
async function agUiRun(who: Caller, agent: Agent, threadId: string, text: string): Promise<string> {
  const message = { id: crypto.randomUUID(), role: "user", content: text };
  const body = { threadId, runId: crypto.randomUUID(), messages: [message], tools: [], context: [] };
  const res = await callJson(`/v1/agents/${agent.id}/ag-ui`, "POST", body, who.headers);
  expect(res.status, await res.clone().text()).toBe(200);
  return res.text();
}

const agUi: Protocol = {
  async start(who, agent, said) {
    const threadId = uniqueKey("thread");
    expect(await agUiRun(who, agent, threadId, said)).toContain("RUN_FINISHED");
    return { sessionId: await chatSessionId(who, agent.id, threadId), conversationId: threadId, said };
  },
  // A run is AG-UI's only request and its stream carries no earlier messages: a thread is reached by
  // running it, which the shared-id test below does for every principal against each owner's thread.
  sees: async () => null,
};

const PROTOCOLS = { rest, chat, mcp, a2a, ag_ui: agUi } as const;
/** The principals a protocol refuses outright: an end user on MCP, whose agents list it may not read. */
const REFUSED: ReadonlySet<string> = new Set(["end_user_a mcp"]);
type ProtocolName = keyof typeof PROTOCOLS;

describe("one auth model across REST, chat, MCP, A2A and AG-UI", () => {
  let principals: Principals;
  let agent: Agent;

  beforeAll(async () => {
    const tenantId = freshTenant("proto-auth");
    agentTenant = tenantId;
    // Every principal runs a few dozen requests here: more in a minute than an end user's window takes.
    await tenantIndexStub(env, tenantId).setLimitOverrides(tenantId, { end_user_requests_per_minute: 1_000, requests_per_minute: 2_000 });
    const key = await apiKey(tenantId);
    const author = await backend(tenantId);
    agent = await createAgent(author, { name: uniqueKey("helper"), model: mockModel(uniqueKey("model")).key });
    principals = {
      api_key: key,
      jwt_user: {
        tenantId,
        subject: "jwt-user",
        headers: await bearer({ tenantId, subject: "jwt-user", scopes: ["sessions:read", "sessions:write"], expiresIn: 3600 }),
      },
      end_user_a: await endUser(key, "alice"),
      end_user_b: await endUser(key, "bob"),
      other_tenant_key: await apiKey(freshTenant("proto-other")),
      admin: {
        tenantId,
        subject: "admin",
        headers: await bearer({ tenantId, scopes: ["tenant:admin"], subject: "admin", expiresIn: 3600 }),
      },
    };
  });

  const cases = OWNERS.flatMap((owner) => (Object.keys(PROTOCOLS) as ProtocolName[]).map((through) => [owner, through] as const));

  it.each(cases)(
    "a session %s starts through %s is seen by its owner alone, through every protocol that names it",
    async (owner, through) => {
      const said = uniqueKey(`said-${owner}-${through}`);
      const started = await PROTOCOLS[through].start(principals[owner], agent, said);
      expect(started === null).toBe(REFUSED.has(`${owner} ${through}`));
      if (started === null) return;
      const seen: Record<string, Record<string, boolean | null>> = {};
      for (const viewer of PRINCIPALS) {
        seen[viewer] = {};
        for (const [name, protocol] of Object.entries(PROTOCOLS))
          seen[viewer][name] = await protocol.sees(principals[viewer], agent, started);
      }
      const expected = Object.fromEntries(
        PRINCIPALS.map((viewer) => [
          viewer,
          {
            rest: viewer === owner || SEES_ALL_BY_ID.has(viewer),
            chat: started.conversationId === null ? null : viewer === owner,
            a2a: started.conversationId === null ? null : viewer === owner,
            ag_ui: null,
            mcp: null,
          },
        ]),
      );
      expect(seen).toEqual(expected);
    },
  );

  it.each(OWNERS)(
    "reaches %s's session through chat, A2A and AG-UI under one id, and every other principal's own under that id",
    async (ownerName) => {
      const owner = principals[ownerName];
      const id = uniqueKey("shared");
      const first = uniqueKey("through-chat");
      const message = { id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text: first }] };
      const res = await callJson(
        `/v1/agents/${agent.id}/chat`,
        "POST",
        { id, messages: [message], trigger: "submit-message" },
        owner.headers,
      );
      expect(res.status).toBe(200);
      await res.text();
      const second = uniqueKey("through-a2a");
      expect((await a2aCall(owner, agent, "SendMessage", a2aMessage(id, second))).result?.task?.contextId).toBe(id);
      const third = uniqueKey("through-ag-ui");
      expect(await agUiRun(owner, agent, id, third)).toContain("RUN_FINISHED");
      const ownerSaid = [first, second, third];
      const ownerSession = await chatSessionId(owner, agent.id, id);
      await waitForStatus(owner, ownerSession, ["done", "idle"]);

      // Every other principal aims at the owner's conversation by its id, through A2A and AG-UI.
      const probes: string[] = [];
      for (const name of PRINCIPALS.filter((p) => p !== ownerName)) {
        const who = principals[name];
        const probe = uniqueKey(`probe-${name}`);
        probes.push(probe);
        const sent = await a2aCall(who, agent, "SendMessage", a2aMessage(id, probe));
        const read = await a2aCall(who, agent, "GetTask", { id: `1.${id}`, historyLength: 10 });
        for (const said of ownerSaid) expect(JSON.stringify([sent, read]), `${name} reads ${ownerName}'s A2A task`).not.toContain(said);
        if (who.tenantId !== agentTenant) continue;
        const stream = await agUiRun(who, agent, id, probe);
        for (const said of ownerSaid) expect(stream, `${name} reads ${ownerName}'s AG-UI thread`).not.toContain(said);
        // The probes went to a session of the prober's own, which holds none of the owner's words.
        const own = await chatSessionId(who, agent.id, id);
        expect(own).not.toBe(ownerSession);
        await waitForStatus(who, own, ["done", "idle"]);
        const theirs = await (await call(`/v1/sessions/${own}/messages`, { headers: who.headers })).text();
        expect(theirs).toContain(probe);
        for (const said of ownerSaid) expect(theirs).not.toContain(said);
      }
      const owned = await (await call(`/v1/sessions/${ownerSession}/messages`, { headers: owner.headers })).text();
      for (const said of ownerSaid) expect(owned).toContain(said);
      for (const probe of probes) expect(owned, `a probe reached ${ownerName}'s session`).not.toContain(probe);
    },
  );

  it("gives each principal's message under one chat id to a session of its own, which the others cannot read", async () => {
    const chatId = uniqueKey("shared-chat");
    const tenantPrincipals = PRINCIPALS.filter((name) => principals[name].tenantId === agentTenant);
    const said = Object.fromEntries(tenantPrincipals.map((name) => [name, uniqueKey(`chat-${name}`)]));
    for (const name of tenantPrincipals) {
      const message = { id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text: said[name] }] };
      const res = await callJson(
        `/v1/agents/${agent.id}/chat`,
        "POST",
        { id: chatId, messages: [message], trigger: "submit-message" },
        principals[name].headers,
      );
      expect(res.status, await res.clone().text()).toBe(200);
      await res.text();
    }
    for (const name of tenantPrincipals) {
      const who = principals[name];
      await waitForStatus(who, await chatSessionId(who, agent.id, chatId), ["done", "idle"]);
      const read = await (await call(`/v1/agents/${agent.id}/chat/${chatId}/messages`, { headers: who.headers })).text();
      for (const other of tenantPrincipals) {
        if (other === name) expect(read).toContain(said[other]);
        else expect(read, `${name} reads ${other}'s chat`).not.toContain(said[other]);
      }
    }
  });
});
