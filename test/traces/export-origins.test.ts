/**
 * A trace export keeps to the tenant's `webhook_origins` when it is sent, not only when the
 * setting is saved: a collector outside the list (settings stored around the API's check, as an
 * older version or a direct write could leave them) receives nothing, and the spans are dropped.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sessionStub, tenantIndexStub } from "../../src/objects";
import { SessionStore } from "../../src/sessions/object/store/store";
import { mockHook, mockModel, uniqueKey } from "../support/mock-client";
import { caller, createSession, text, waitForStatus } from "../api/sessions/helpers";

describe("a trace export", () => {
  it("sends nothing to a collector outside the tenant's webhook_origins, and owes no span after", async () => {
    const who = await caller(undefined, ["sessions:read", "sessions:write", "tenant:admin"]);
    const collector = mockHook(uniqueKey("otel-outside"));
    await collector.script({ status: 200, body: {}, repeat: 20 });
    await tenantIndexStub(env, who.tenantId).putSettings(who.tenantId, {
      webhook_origins: ["https://hooks.example.com"],
      session_retention_days: null,
      traces: { endpoint: collector.url, headers: {}, capture_content: false },
    });
    const model = mockModel(uniqueKey("outside"));
    await model.script({ reply: { content: [text("done")], usage: { input_tokens: 3, output_tokens: 2 } } });
    const session = await createSession(who, { model: model.key, input: "hi" });
    expect((await waitForStatus(who, session.id, ["done", "failed"])).status).toBe("done");
    await expect
      .poll(() =>
        runInDurableObject(sessionStub(env, who.tenantId, session.id), (_instance, state) => new SessionStore(state.storage).spanCount()),
      )
      .toBe(0);
    expect(await collector.requests()).toEqual([]);
  });
});
