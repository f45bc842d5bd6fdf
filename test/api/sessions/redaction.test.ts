/**
 * The tenant's `redaction` setting through the public API: set, read, refused with paths and
 * audited; and a run under it, where an address in the user's input, a tool's output and the
 * model's answer reaches storage, the export and the next model request only as `[redacted:…]`.
 */
import { describe, expect, it } from "vitest";
import { call, callJson, readProblem } from "../../support/api";
import { mockHook, mockModel, uniqueKey } from "../../support/mock-client";
import { watchSse } from "../../support/event-client";
import { tenantLog } from "../audit/helpers";
import { eventually } from "../../notifications/helpers";
import { MAX_DENY_REASON_CHARS } from "../../../src/limits";
import { caller, createSession, messagesOf, OBJECT_SCHEMA, post, text, toolCallsOf, toolUse, waitForStatus } from "./helpers";

const ALL = {
  detectors: ["email", "phone", "credit_card", "iban", "secret"],
  apply_to: ["user_input", "tool_output", "model_output"],
};

async function admin() {
  return caller(undefined, ["tenant:admin"], "admin-1");
}

function putRedaction(headers: Record<string, string>, redaction: unknown): Promise<Response> {
  return callJson("/v1/tenant/settings", "PUT", { webhook_origins: null, redaction }, headers);
}

describe("the redaction setting", () => {
  it("is stored normalized, read back, cleared by a PUT without it, and audited", async () => {
    const who = await admin();
    const res = await putRedaction(who.headers, { detectors: ["secret", "email", "email"], apply_to: ["tool_output"] });
    expect(res.status).toBe(200);
    const stored = { detectors: ["email", "secret"], apply_to: ["tool_output"] };
    expect(((await res.json()) as { redaction: unknown }).redaction).toEqual(stored);
    const read = (await (await call("/v1/tenant/settings", { headers: who.headers })).json()) as { redaction: unknown };
    expect(read.redaction).toEqual(stored);
    const cleared = await callJson("/v1/tenant/settings", "PUT", { webhook_origins: null }, who.headers);
    expect(((await cleared.json()) as { redaction: unknown }).redaction).toBeNull();
    const log = await tenantLog(who.headers, "&action=settings.updated");
    expect(log.map((entry) => (entry.details as { after: { redaction?: unknown } }).after.redaction ?? null)).toEqual([stored, null]);
  });

  it.each([
    ["an unknown detector", { detectors: ["ssn"], apply_to: ["tool_output"] }, "body.redaction.detectors.0"],
    ["an unknown target", { detectors: ["email"], apply_to: ["logs"] }, "body.redaction.apply_to.0"],
    ["no detector", { detectors: [], apply_to: ["tool_output"] }, "body.redaction.detectors"],
    ["a missing list", { detectors: ["email"] }, "body.redaction.apply_to"],
    ["another field", { ...ALL, mode: "mask" }, "body.redaction"],
  ])("refuses %s with its path", async (_what, redaction, path) => {
    const who = await admin();
    const res = await putRedaction(who.headers, redaction);
    expect(res.status).toBe(400);
    expect((await readProblem(res)).errors?.map((e) => e.path)).toContain(path);
  });
});

describe("a run under the redaction setting", () => {
  it("stores, exports and sends the model only the redacted input, tool output and answer; a later change applies to later input", async () => {
    const tenantId = (await admin()).tenantId;
    const boss = await caller(tenantId, ["tenant:admin", "sessions:read", "sessions:write"], "admin-1");
    expect((await putRedaction(boss.headers, ALL)).status).toBe(200);
    const model = mockModel(uniqueKey("redact"));
    const hook = mockHook(uniqueKey("crm"));
    await hook.script({ status: 200, body: { output: "customer carol@example.com, card 4111 1111 1111 1111, key AKIAIOSFODNN7EXAMPLE" } });
    await model.script(
      { reply: { content: [toolUse("toolu_crm", "crm", { customer: "alice" })] } },
      { reply: { content: [text("Write to dave@example.com or call +1 415 555 0100.")] } },
      { reply: { content: [text("Noted.")] } },
      { reply: { content: [text("Noted again.")] } },
    );
    const session = await createSession(boss, {
      input: "I am alice@example.com, IBAN DE89 3704 0044 0532 0130 00.",
      model: model.key,
      tools: [{ type: "webhook", name: "crm", description: "Look up a customer", input_schema: OBJECT_SCHEMA, url: hook.url }],
    });
    await waitForStatus(boss, session.id, ["done"]);
    const originals = ["alice@example.com", "DE89", "carol@example.com", "4111", "AKIAIOSFODNN7EXAMPLE", "dave@example.com", "555 0100"];

    const stored = JSON.stringify(await messagesOf(boss, session.id));
    expect(stored).toContain("I am [redacted:email], IBAN [redacted:iban].");
    expect(stored).toContain("customer [redacted:email], card [redacted:credit_card], key [redacted:secret]");
    expect(stored).toContain("Write to [redacted:email] or call [redacted:phone].");
    expect((await toolCallsOf(boss, session.id))[0]!.output).toBe(
      "customer [redacted:email], card [redacted:credit_card], key [redacted:secret]",
    );
    const exported = await (await call(`/v1/sessions/${session.id}/export`, { headers: boss.headers })).text();
    expect(exported).toContain("[redacted:email]");
    for (const original of originals) {
      expect(stored).not.toContain(original);
      expect(exported).not.toContain(original);
    }

    // The next run's model request carries the redacted answer and input, never the originals.
    expect((await post(boss, `/v1/sessions/${session.id}/messages`, { input: "Also bob@example.com" })).status).toBe(202);
    await waitForStatus(boss, session.id, ["done"]);
    const sent = (await model.requests()).map((request) => JSON.stringify(request.body));
    expect(sent).toHaveLength(3);
    expect(sent[0]).toContain("I am [redacted:email]");
    expect(sent[1]).toContain("customer [redacted:email], card [redacted:credit_card]");
    expect(sent[2]).toContain("Write to [redacted:email] or call [redacted:phone].");
    expect(sent[2]).toContain("Also [redacted:email]");
    for (const body of sent) for (const original of [...originals, "bob@example.com"]) expect(body).not.toContain(original);

    // Cleared, the setting no longer applies to the next message.
    expect((await putRedaction(boss.headers, null)).status).toBe(200);
    expect((await post(boss, `/v1/sessions/${session.id}/messages`, { input: "Now erin@example.com" })).status).toBe(202);
    await waitForStatus(boss, session.id, ["done"]);
    expect(JSON.stringify(await messagesOf(boss, session.id))).toContain("Now erin@example.com");
  });
});

describe("a message queued while a run goes", () => {
  it("is redacted before it waits in the queue, by the setting when it was sent", async () => {
    const tenantId = (await admin()).tenantId;
    const boss = await caller(tenantId, ["tenant:admin", "sessions:read", "sessions:write"], "admin-1");
    expect((await putRedaction(boss.headers, { detectors: ["email"], apply_to: ["user_input"] })).status).toBe(200);
    const model = mockModel(uniqueKey("queued"));
    const hook = mockHook(uniqueKey("slow"));
    await hook.script({ hold: true, then: { status: 200, body: { output: "ok" } } });
    await model.script(
      { reply: { content: [toolUse("toolu_slow", "slow", {})] } },
      { reply: { content: [text("first done")] } },
      { reply: { content: [text("second done")] } },
    );
    const session = await createSession(boss, {
      input: "start",
      model: model.key,
      tools: [{ type: "webhook", name: "slow", description: "slow", input_schema: OBJECT_SCHEMA, url: hook.url }],
    });
    await hook.waitForRequests(1);
    const queued = await post(boss, `/v1/sessions/${session.id}/messages`, { input: "then mail erin@example.com", if_running: "enqueue" });
    expect(queued.status).toBe(202);
    await hook.release();
    await waitForStatus(boss, session.id, ["done"]);
    const stored = JSON.stringify(await messagesOf(boss, session.id));
    expect(stored).toContain("then mail [redacted:email]");
    expect(stored).not.toContain("erin@example.com");
    expect(JSON.stringify((await model.requests()).at(-1)!.body)).toContain("then mail [redacted:email]");
  });
});

describe("watchers of a run whose answers are redacted", () => {
  async function watchedRun(applyTo: string[]) {
    const tenantId = (await admin()).tenantId;
    const boss = await caller(tenantId, ["tenant:admin", "sessions:read", "sessions:write"], "admin-1");
    expect((await putRedaction(boss.headers, { detectors: ["email"], apply_to: applyTo })).status).toBe(200);
    const model = mockModel(uniqueKey("watched"));
    const session = await createSession(boss, { model: model.key });
    const res = await call(`/v1/sessions/${session.id}/events`, { headers: { ...boss.headers, Accept: "text/event-stream" } });
    const watch = watchSse(res);
    await watch.untilType("snapshot");
    await model.script({ reply: { content: [text("Write to dave@example.com.")] } });
    expect((await post(boss, `/v1/sessions/${session.id}/messages`, { input: "who?" })).status).toBe(202);
    await watch.untilClosed();
    return watch;
  }

  it("get no deltas, only the saved message, redacted", async () => {
    const watch = await watchedRun(["model_output"]);
    expect(watch.types()).not.toContain("delta");
    expect(JSON.stringify(watch.frames)).toContain("Write to [redacted:email].");
    expect(JSON.stringify(watch.frames)).not.toContain("dave@example.com");
  });

  it("get the deltas when only other content is redacted", async () => {
    const watch = await watchedRun(["user_input", "tool_output"]);
    expect(watch.types()).toContain("delta");
    expect(JSON.stringify(watch.frames)).toContain("dave@example.com");
  });
});

describe("a model's writing under model_output", () => {
  it("redacts tool calls' arguments before they are stored, run and sent back, and a structured answer's value; asks for no signed reasoning", async () => {
    const tenantId = (await admin()).tenantId;
    const boss = await caller(tenantId, ["tenant:admin", "sessions:read", "sessions:write"], "admin-1");
    expect((await putRedaction(boss.headers, { detectors: ["email"], apply_to: ["model_output"] })).status).toBe(200);
    const model = mockModel(uniqueKey("claude-sonnet-4-5"));
    const hook = mockHook(uniqueKey("mailer"));
    await hook.script({ status: 200, body: { output: "sent" } });
    await model.script(
      { reply: { content: [toolUse("toolu_mail", "mail", { to: "carol@example.com", cc: ["dan@example.com"] })] } },
      { reply: { content: [toolUse("toolu_out", "respond", { email: "erin@example.com", note: "ok" })] } },
    );
    const session = await createSession(boss, {
      input: "mail carol",
      model: model.key,
      reasoning: { budget_tokens: 2_048 },
      output_schema: { type: "object", properties: { email: { type: "string" }, note: { type: "string" } }, required: ["email"] },
      tools: [{ type: "webhook", name: "mail", description: "Send mail", input_schema: OBJECT_SCHEMA, url: hook.url }],
    });
    const done = await waitForStatus(boss, session.id, ["done", "failed"]);
    expect(done.status).toBe("done");
    expect(done.output).toEqual({ email: "[redacted:email]", note: "ok" });
    expect((await toolCallsOf(boss, session.id))[0]!.input).toEqual({ to: "[redacted:email]", cc: ["[redacted:email]"] });
    expect(JSON.stringify((await hook.requests())[0]!.body)).toContain("[redacted:email]");
    const exported = await (await call(`/v1/sessions/${session.id}/export`, { headers: boss.headers })).text();
    const sent = (await model.requests()).map((request) => JSON.stringify(request.body));
    for (const original of ["carol@example.com", "dan@example.com", "erin@example.com"]) {
      expect(exported).not.toContain(original);
      for (const body of sent) expect(body).not.toContain(original);
      expect(JSON.stringify(done)).not.toContain(original);
    }
    // Anthropic signs its reasoning, which cannot then be redacted: it is not asked for.
    for (const request of await model.requests()) expect((request.body as { thinking?: unknown }).thinking).toBeUndefined();
  });
});

describe("a reviewer's deny reason", () => {
  it("is redacted as user input before the tool result and the audit log get it", async () => {
    const tenantId = (await admin()).tenantId;
    const boss = await caller(tenantId, ["tenant:admin", "sessions:read", "sessions:write"], "admin-1");
    expect((await putRedaction(boss.headers, { detectors: ["email"], apply_to: ["user_input"] })).status).toBe(200);
    const model = mockModel(uniqueKey("deny"));
    await model.script({ reply: { content: [toolUse("toolu_deny", "get_time", {})] } }, { reply: { content: [text("ok")] } });
    const session = await createSession(boss, {
      input: "what time is it",
      model: model.key,
      tools: [{ type: "builtin", name: "get_time", requires_approval: true }],
    });
    await waitForStatus(boss, session.id, ["waiting_approval"]);
    const reason = "ask frank@example.com first";
    expect((await post(boss, `/v1/sessions/${session.id}/tool-calls/toolu_deny/deny`, { reason })).status).toBe(200);
    await waitForStatus(boss, session.id, ["done"]);
    expect((await toolCallsOf(boss, session.id))[0]!.output).toBe("denied by a reviewer: ask [redacted:email] first");
    const denied = await eventually(async () => {
      const entries = await tenantLog(boss.headers, "&action=tool_call.denied");
      return entries.length > 0 ? entries : undefined;
    }, "the deny's entry");
    expect(denied[0]!.details).toMatchObject({ reason: "ask [redacted:email] first" });
    expect(JSON.stringify(await model.requests())).not.toContain("frank@example.com");
  });

  it("is refused past the one bound every protocol keeps", async () => {
    const boss = await caller(undefined, ["sessions:read", "sessions:write"], "admin-1");
    const res = await post(boss, "/v1/sessions/sess_none/tool-calls/toolu_x/deny", { reason: "n".repeat(MAX_DENY_REASON_CHARS + 1) });
    expect(res.status).toBe(400);
  });
});

describe("a compaction summary under model_output", () => {
  it("is redacted before it is saved and sent with later requests", async () => {
    const tenantId = (await admin()).tenantId;
    const boss = await caller(tenantId, ["tenant:admin", "sessions:read", "sessions:write"], "admin-1");
    expect((await putRedaction(boss.headers, { detectors: ["email"], apply_to: ["model_output"] })).status).toBe(200);
    const model = mockModel(uniqueKey("summary"));
    await model.script(
      ...Array.from({ length: 12 }, (_, i) => ({ reply: { content: [toolUse(`call_${i}`, "get_time")] } })),
      { reply: { content: [text("done")] } },
      {
        match: { system_includes: "running summary" },
        repeat: 20,
        reply: { content: [text("the user zed@example.com wants the time, looked up several times")] },
      },
    );
    const session = await createSession(boss, {
      input: "look up the time again and again",
      model: model.key,
      tools: [{ type: "builtin", name: "get_time" }],
      context: { strategy: "summary", max_input_tokens: 500 },
    });
    expect((await waitForStatus(boss, session.id, ["done", "failed"], 20_000)).status).toBe("done");
    const recorded = await model.requests();
    const requests = recorded.map((request) => JSON.stringify(request.body));
    const isStep = (body: unknown) => !JSON.stringify((body as { system?: unknown }).system ?? "").includes("running summary");
    const after = recorded.filter((request) => isStep(request.body)).map((request) => JSON.stringify(request.body));
    expect(after.filter((body) => body.includes("[Summary of the earlier conversation]")).length).toBeGreaterThanOrEqual(1);
    for (const body of after.filter((body) => body.includes("[Summary of the earlier conversation]")))
      expect(body).toContain("the user [redacted:email] wants the time");
    for (const body of requests) expect(body).not.toContain("zed@example.com");
  }, 30_000);
});
