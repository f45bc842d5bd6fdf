/**
 * How often the gateway asks the tenant's index on `POST /v1/sessions`: each call is a round
 * trip to one object every request of the tenant goes through, so the count is kept down and
 * pinned here. The index is wrapped to record the methods the gateway calls on it.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/api/app";
import { tenantIndexStub } from "../../../src/objects";
import { BASE_URL } from "../../support/api";
import { recordingNamespace } from "../../support/recording-namespace";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { type Caller, caller, text } from "./helpers";

async function create(who: Caller, body: Record<string, unknown>): Promise<{ status: number; calls: string[] }> {
  const calls: string[] = [];
  const ctx = createExecutionContext();
  const request = new Request(`${BASE_URL}/v1/sessions`, {
    method: "POST",
    headers: { ...who.headers, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const res = await createApp().fetch(request, { ...env, TENANT_INDEX: recordingNamespace(env.TENANT_INDEX, calls) }, ctx);
  await waitOnExecutionContext(ctx);
  await res.arrayBuffer();
  return { status: res.status, calls };
}

describe("POST /v1/sessions: the gateway's calls to the tenant index", () => {
  it("admits the request, then the run (daily budget and slot) in one call, for a session with input", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [text("hi")] } });
    const { status, calls } = await create(who, { input: "hi", model: model.key });
    expect(status).toBe(201);
    expect(calls).toEqual(["admitRequest", "admitRun"]);
  });

  it("asks no more when the tenant has a daily budget: the run's admission checks it", async () => {
    const who = await caller();
    await tenantIndexStub(env, who.tenantId).setLimitOverrides(who.tenantId, { max_tokens_per_day: 1_000_000 });
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [text("hi")] } });
    const { status, calls } = await create(who, { input: "hi", model: model.key });
    expect(status).toBe(201);
    expect(calls).toEqual(["admitRequest", "admitRun"]);
  });

  it("only admits the request for a session without input", async () => {
    const who = await caller();
    const { status, calls } = await create(who, {});
    expect(status).toBe(201);
    expect(calls).toEqual(["admitRequest"]);
  });
});
