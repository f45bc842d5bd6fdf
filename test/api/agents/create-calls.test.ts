/**
 * What a session from an agent costs the create path: today's calls to the tenant index, plus one
 * call to the tenant's agent store, whatever the reference (latest, number, alias). The
 * definition crosses that call once per isolate and version: a version already held is not sent
 * again. Both namespaces are wrapped to record the methods the gateway calls and, for the store,
 * whether each answer carried a definition.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/api/app";
import { BASE_URL, call } from "../../support/api";
import { recordingNamespace } from "../../support/recording-namespace";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { type Caller, text } from "../sessions/helpers";
import { author, createAgent, putAlias } from "./helpers";

interface Calls {
  index: string[];
  store: string[];
  /** For each `resolve` answer: whether it carried the definition. */
  definitions: boolean[];
}

/** The agent store's namespace, recording each call and whether a resolve answer carried a definition. */
function recordingStore(calls: Calls): typeof env.AGENT_STORE {
  const plain = env.AGENT_STORE as unknown as DurableObjectNamespace;
  const wrap = (stub: DurableObjectStub) =>
    new Proxy(stub, {
      get(target, method) {
        const value = Reflect.get(target, method);
        if (typeof value !== "function" || typeof method !== "string") return value;
        return async (...args: unknown[]) => {
          calls.store.push(method);
          const answer = (await Reflect.apply(value, target, args)) as { ok: boolean; value?: { definition?: unknown } };
          if (method === "resolve") calls.definitions.push(answer.ok && answer.value?.definition !== undefined);
          return answer;
        };
      },
    });
  return {
    idFromName: (name: string) => plain.idFromName(name),
    get: (id: DurableObjectId) => wrap(plain.get(id) as unknown as DurableObjectStub),
  } as unknown as typeof env.AGENT_STORE;
}

async function create(who: Caller, body: Record<string, unknown>): Promise<{ status: number; calls: Calls }> {
  const calls: Calls = { index: [], store: [], definitions: [] };
  const ctx = createExecutionContext();
  const request = new Request(`${BASE_URL}/v1/sessions`, {
    method: "POST",
    headers: { ...who.headers, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const res = await createApp().fetch(
    request,
    { ...env, TENANT_INDEX: recordingNamespace(env.TENANT_INDEX, calls.index), AGENT_STORE: recordingStore(calls) },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  await res.arrayBuffer();
  return { status: res.status, calls };
}

describe("POST /v1/sessions from an agent: the calls it makes", () => {
  it("adds one call to the agent store to today's path, and sends a version's definition once per isolate", async () => {
    const who = await author();
    const model = mockModel(uniqueKey("model"));
    await model.script(
      { reply: { content: [text("a")] } },
      { reply: { content: [text("b")] } },
      { reply: { content: [text("c")] } },
      { reply: { content: [text("d")] } },
    );
    const agent = await createAgent(who, { name: "counted", model: model.key });
    await putAlias(who, agent.id, "production", 1);

    const plain = await create(who, { input: "hi", model: model.key });
    expect(plain.status).toBe(201);
    expect(plain.calls.store).toEqual([]);

    const results = [];
    for (const ref of [agent.id, `${agent.id}@1`, `${agent.id}@production`]) {
      const { status, calls } = await create(who, { input: "hi", agent: ref });
      expect(status, ref).toBe(201);
      expect(calls.index, ref).toEqual(plain.calls.index);
      expect(calls.store, ref).toEqual(["resolve"]);
      results.push(...calls.definitions);
    }
    // The first read brought the definition; the version was held for the two after it.
    expect(results).toEqual([true, false, false]);
  });

  it("reads aliases and archival fresh on every creation, cached version or not", async () => {
    const who = await author();
    const agent = await createAgent(who, { name: "fresh" });
    await putAlias(who, agent.id, "production", 1);
    expect((await create(who, { agent: `${agent.id}@production` })).status).toBe(201);
    expect((await call(`/v1/agents/${agent.id}/aliases/production`, { method: "DELETE", headers: who.headers })).status).toBe(204);
    expect((await create(who, { agent: `${agent.id}@production` })).status).toBe(404);
    expect((await call(`/v1/agents/${agent.id}`, { method: "DELETE", headers: who.headers })).status).toBe(204);
    const archived = await create(who, { agent: `${agent.id}@1` });
    expect(archived.status).toBe(409);
    expect(archived.calls.store).toEqual(["resolve"]);
  });
});
