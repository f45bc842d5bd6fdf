/**
 * The session object's trace outbox on storage the previous version wrote: the table appears on
 * the next wake, a run state without `trace` reads as an untraced run, and the next run on a
 * tenant that exports traces is traced and exported. A session made from an agent before the
 * agent's name was kept with it (no `agent_name`) is read as before, its runs named by the agent's id.
 */
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SESSION_MIGRATIONS } from "../../src/sessions/object/store/migrations";
import { latestVersion, schemaVersion } from "../../src/storage/migrations";
import { tenantIndexStub } from "../../src/objects";
import { migrateSessionTo, userTables, writeLegacyAgentSession, writeLegacySession } from "../support/legacy-storage";
import { newTestSession, unwrap, waitForStatus } from "../support/agent-session";
import { mockHook, uniqueKey } from "../support/mock-client";
import { decodeTraceExport } from "../support/otlp-decode";

/** The last session-object version before traces; renumbered at merge if other steps land first. */
const BEFORE_TRACES = 10;

describe("the trace outbox migration", () => {
  it(`takes a session at version ${BEFORE_TRACES} to the newest, untraced until a run starts on a tenant that exports traces`, async () => {
    const t = newTestSession();
    await runInDurableObject(t.stub, async (_instance, state) => {
      migrateSessionTo(state.storage, BEFORE_TRACES);
      writeLegacySession(state.storage, t, { version: BEFORE_TRACES, statements: [] });
    });
    await abortAllDurableObjects();
    expect(unwrap(await t.stub.get())).toMatchObject({ status: "done" });
    await runInDurableObject(t.stub, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(SESSION_MIGRATIONS));
      // Version 11 made it; version 14 drops it while empty, to be made by the first traced run.
      expect(userTables(state.storage)).not.toContain("trace_spans");
    });

    const collector = mockHook(uniqueKey("otel"));
    await collector.script({ status: 200, body: {}, repeat: 5 });
    await tenantIndexStub(env, t.tenantId).putSettings(t.tenantId, {
      webhook_origins: null,
      session_retention_days: null,
      traces: { endpoint: collector.url },
    });
    await t.model.script({ reply: { content: [{ type: "text", text: "again" }] } });
    unwrap(await t.stub.start("once more", null, { trace: { parent: null, capture_content: false } }));
    expect(await waitForStatus(t, ["done"])).toMatchObject({ status: "done" });
    const [request] = await collector.waitForRequests(1);
    let names = decodeTraceExport(request!.body_text).map((span) => span.name);
    // The root span may come in a later batch than the model call's.
    if (names.length < 2)
      names = [...names, ...decodeTraceExport((await collector.waitForRequests(2))[1]!.body_text).map((span) => span.name)];
    expect(names.sort()).toEqual([`chat ${t.model.key}`, `invoke_agent ${t.sessionId}`]);
    expect(await runInDurableObject(t.stub, async (_instance, state) => userTables(state.storage))).toContain("trace_spans");
  });
});

describe("an agent's session stored before agent names were kept with sessions", () => {
  it("reads as before, and its traced run is named after the agent's id (its name is not known)", async () => {
    const t = newTestSession();
    const latest = latestVersion(SESSION_MIGRATIONS);
    const agent = { id: "agt_legacy0000000000000000", version: 3 };
    await runInDurableObject(t.stub, async (_instance, state) => {
      migrateSessionTo(state.storage, latest);
      writeLegacyAgentSession(state.storage, t, { version: latest, statements: [] }, agent);
    });
    await abortAllDurableObjects();
    const before = unwrap(await t.stub.get());
    expect(before).toMatchObject({ status: "done", agent });
    expect(before).not.toHaveProperty("agent_name");

    const collector = mockHook(uniqueKey("otel"));
    await collector.script({ status: 200, body: {}, repeat: 5 });
    await tenantIndexStub(env, t.tenantId).putSettings(t.tenantId, {
      webhook_origins: null,
      session_retention_days: null,
      traces: { endpoint: collector.url },
    });
    await t.model.script({ reply: { content: [{ type: "text", text: "again" }] } });
    unwrap(await t.stub.start("once more", null, { trace: { parent: null, capture_content: false } }));
    expect(await waitForStatus(t, ["done"])).toMatchObject({ status: "done" });
    const root = await rootSpan(collector);
    expect(root.name).toBe(`invoke_agent ${agent.id}`);
    expect(root.attributes["gen_ai.agent.id"]).toBe(agent.id);
    expect(root.attributes).not.toHaveProperty("gen_ai.agent.name");
  });
});

/** The root span among the collector's exports, once one came. */
async function rootSpan(collector: ReturnType<typeof mockHook>) {
  for (let count = 1; ; count++) {
    const requests = await collector.waitForRequests(count);
    const root = requests.flatMap((request) => decodeTraceExport(request.body_text)).find((span) => span.name.startsWith("invoke_agent "));
    if (root) return root;
  }
}
