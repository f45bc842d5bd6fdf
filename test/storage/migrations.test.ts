import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SESSION_MIGRATIONS } from "../../src/sessions/object/store/migrations";
import type { SessionResult, Page, Session, Step } from "../../src/session-config/types";
import { BUILTIN_DEFAULT_LIMITS, DEFAULT_MAX_IMAGE_BYTES } from "../../src/limits";
import { memoryStoreStub, schedulerStub, sessionStub, tenantIndexStub } from "../../src/objects";
import { LEGACY_SCHEDULE_GRACE_MS, SCHEDULER_MIGRATIONS } from "../../src/schedules/migrations";
import { openGate } from "../../src/schedules/fire";
import { creatorOf, getSchedule } from "../../src/schedules/store";
import type { Schedule } from "../../src/schedules/types";
import { checkSequence, latestVersion, type Migration, migrate, SCHEMA_VERSION_KEY, schemaVersion } from "../../src/storage/migrations";
import { TENANT_INDEX_MIGRATIONS } from "../../src/tenants/migrations";
import {
  AGENT_LAYOUT_V0,
  INDEX_LAYOUT_V0,
  INDEX_LAYOUT_V1,
  LIMITS_BEFORE_SCHEDULES,
  migrateIndexTo,
  migrateSessionTo,
  userTables,
  writeAgentV2,
  writeAgentV2WithEvents,
  writeAgentV6Running,
  writeLegacySession,
  writeLegacyIndex,
  writeWaitingAgentV6,
  writeRefusedSessionV8,
  writeSchedulerV1,
  writeMemoryV1,
  type LegacyMemoryItem,
} from "../support/legacy-storage";
import { MEMORY_STORE_MIGRATIONS } from "../../src/memory/migrations";
import { scopeText } from "../../src/memory/item-row";
import type { MemoryItem, MemoryResult, ScoredItem } from "../../src/memory/types";
import { pngBytes } from "../support/images";
import { estimateMessageTokens } from "../../src/sessions/object/context/estimate";
import type { RunState } from "../../src/sessions/object/store/store";
import { openSse } from "../support/agent-stream";
import { createAndStart, messages, newTestSession, toolCalls, unwrap, waitForStatus } from "../support/agent-session";
import { mockHook, uniqueKey } from "../support/mock-client";
import { call } from "../support/api";
import { legacyKey } from "../support/api-keys";
import { freshTenant } from "../support/tokens";
import { storedEvents } from "../support/event-rows";

/** The TenantIndex's last version before usage rollups (migration 9 added them). */
const INDEX_VERSION_BEFORE_ROLLUPS = 11;

/** Storage of a session object that was never created: an empty object to run migrations against. */
function scratchObject() {
  return sessionStub(env, freshTenant("m"), `ses_${crypto.randomUUID().replaceAll("-", "")}`);
}

const notes: Migration[] = [
  { version: 1, description: "notes", up: (s) => void s.sql.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)") },
  { version: 2, description: "notes.author", up: (s) => void s.sql.exec("ALTER TABLE notes ADD COLUMN author TEXT NOT NULL DEFAULT ''") },
];

describe("the migration runner", () => {
  it("applies each step once, in order, and records the version", async () => {
    await runInDurableObject(scratchObject(), async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(0);
      expect(migrate(state.storage, notes.slice(0, 1))).toBe(1);
      state.storage.sql.exec("INSERT INTO notes (text) VALUES ('kept')");
      expect(migrate(state.storage, notes)).toBe(2);
      expect(migrate(state.storage, notes)).toBe(2); // nothing left to do: no error from a second ALTER
      expect(state.storage.sql.exec("SELECT text, author FROM notes").toArray()).toEqual([{ text: "kept", author: "" }]);
      expect(state.storage.kv.get(SCHEMA_VERSION_KEY)).toBe(2);
    });
  });

  it("rolls a failing step back whole and keeps the version before it", async () => {
    const failing: Migration = {
      version: 2,
      description: "half done",
      up: (s) => {
        s.sql.exec("ALTER TABLE notes ADD COLUMN author TEXT");
        throw new Error("boom");
      },
    };
    await runInDurableObject(scratchObject(), async (_instance, state) => {
      migrate(state.storage, notes.slice(0, 1));
      expect(() => migrate(state.storage, [notes[0]!, failing])).toThrow("boom");
      expect(schemaVersion(state.storage)).toBe(1);
      const columns = state.storage.sql
        .exec("SELECT name FROM pragma_table_info('notes')")
        .toArray()
        .map((row) => row.name);
      expect(columns).toEqual(["id", "text"]);
      expect(migrate(state.storage, notes)).toBe(2);
    });
  });

  it("refuses a list with a gap or a repeat", () => {
    expect(() => checkSequence([notes[1]!])).toThrow(/expected 1/);
    expect(() => checkSequence([notes[0]!, notes[0]!])).toThrow(/expected 2/);
    expect(() => checkSequence(SESSION_MIGRATIONS)).not.toThrow();
    expect(() => checkSequence(TENANT_INDEX_MIGRATIONS)).not.toThrow();
  });

  it("leaves storage from a newer version as it is", async () => {
    await runInDurableObject(scratchObject(), async (_instance, state) => {
      migrate(state.storage, notes);
      expect(migrate(state.storage, notes.slice(0, 1))).toBe(2);
    });
  });
});

describe("session object storage written by an earlier version", () => {
  it("is migrated on wake, and its session reads and runs as before", async () => {
    const t = newTestSession();
    await runInDurableObject(t.stub, async (_instance, state) => writeLegacySession(state.storage, t, AGENT_LAYOUT_V0));
    await abortAllDurableObjects(); // the next call wakes the object with the new code's constructor
    const session = unwrap(await t.stub.get());
    // Sessions from before agents ran none.
    expect(session).toMatchObject({ id: t.sessionId, status: "done", usage: { steps: 1 }, agent: null, forked_from: null });
    await runInDurableObject(t.stub, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(SESSION_MIGRATIONS));
    });
    expect((await messages(t)).map((m) => m.content)).toEqual([[{ type: "text", text: "hello" }], [{ type: "text", text: "hi there" }]]);
    await t.model.script({ reply: { content: [{ type: "text", text: "again" }] } });
    unwrap(await t.stub.start("once more"));
    await waitForStatus(t, ["done"]);
    expect(await messages(t)).toHaveLength(4);
    // The tables added since (steps) exist and are written.
    const steps = unwrap((await t.stub.listSteps(0, 10)) as SessionResult<Page<Step>>);
    expect(steps.data.map((step) => [step.kind, step.outcome])).toEqual([["model", "ok"]]);
  });

  it("at version 2 gets its token estimates, message kinds, cache counts and run's task, and runs with a window", async () => {
    const t = newTestSession();
    await runInDurableObject(t.stub, async (_instance, state) => writeAgentV2(state.storage, t));
    await abortAllDurableObjects();
    const session = unwrap(await t.stub.get());
    expect(session).toMatchObject({
      status: "done",
      queued_messages: 0,
      usage: { steps: 3, input_tokens: 30, cache_read_tokens: 0, cache_write_tokens: 0 },
    });
    await runInDurableObject(t.stub, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(SESSION_MIGRATIONS));
      const rows = state.storage.sql.exec("SELECT seq, kind, tokens, content FROM messages ORDER BY seq").toArray();
      expect(rows.map((row) => row.kind)).toEqual(["input", "tool_use", "tool_result", "answer", "input", "answer"]);
      for (const row of rows) expect(row.tokens).toBe(estimateMessageTokens(JSON.parse(String(row.content))));
      const run = state.storage.kv.get<RunState>("run")!;
      expect(run).toMatchObject({ run_start_seq: 5, token_ratio: 1, urgent_revision: 9 });
      // Tables a session may never need are made on first use; the newest version drops them while empty.
      expect(userTables(state.storage)).not.toEqual(expect.arrayContaining(["summaries", "pending_messages"]));
    });
    // The next run is sent the session's task, the previous run's task and what fits, from the stored estimates.
    await t.model.script({ reply: { content: [{ type: "text", text: "later" }] } });
    unwrap(await t.stub.start("and the day after?"));
    await waitForStatus(t, ["done"]);
    const sent = (await t.model.requests())[0]!.body as { messages: unknown[] };
    expect(JSON.stringify(sent.messages)).toContain("what time is it?");
    expect(JSON.stringify(sent.messages)).toContain("and the day after?");
  });

  it("at version 2 keeps its event log: copies become references, and a replay shows the same events", async () => {
    const t = newTestSession();
    await runInDurableObject(t.stub, async (_instance, state) => writeAgentV2WithEvents(state.storage, t));
    const before = await runInDurableObject(t.stub, (_i, state) =>
      state.storage.sql.exec("SELECT id, type, data FROM events ORDER BY id").toArray(),
    );
    await abortAllDurableObjects();

    const replay = await openSse(t, { cursor: 0 });
    await replay.untilClosed();
    expect(replay.types()).toEqual([
      "status",
      "message",
      "message",
      "tool_call",
      "usage",
      "tool_result",
      "message",
      "message",
      "usage",
      "status",
      "end",
    ]);
    const after = await runInDurableObject(t.stub, (_i, state) => storedEvents(state.storage.sql));
    expect(after.map((row) => row.id)).toEqual(before.map((row) => row.id));
    for (const [n, row] of after.entries()) {
      const old = JSON.parse(String(before[n]!.data)) as Record<string, unknown>;
      const now = JSON.parse(String(row.data)) as Record<string, unknown>;
      if (row.type === "message") expect(now).toEqual({ seq: old.seq });
      else if (row.type === "tool_call" || row.type === "tool_result") expect(now).toEqual({ id: old.id, status: old.status });
      else expect(now).toEqual(old);
      // The replayed frame shows what the copy showed.
      const frame = replay.stored()[n]!;
      if (row.type === "message" || row.type === "status" || row.type === "usage") expect(frame.data).toEqual(old);
      // Calls of that version were never decided through an approval: the decision fields are empty.
      else
        expect(frame.data).toEqual({
          id: old.id,
          name: old.name,
          step: old.step,
          input: old.input,
          status: old.status,
          output: old.output,
          is_error: old.is_error,
          decided_by: null,
          decided_at: null,
          decision: null,
        });
    }
  });

  it("at version 2 wakes at the newest version, without the run_tools table until it needs one, and runs as before", async () => {
    const t = newTestSession();
    await runInDurableObject(t.stub, async (_instance, state) => writeAgentV2(state.storage, t));
    await abortAllDurableObjects();
    expect(unwrap(await t.stub.get())).toMatchObject({ id: t.sessionId, status: "done" });
    await runInDurableObject(t.stub, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(SESSION_MIGRATIONS));
      // Version 3 made it empty; version 14 drops it while empty, to be made again on first use.
      expect(userTables(state.storage)).not.toContain("run_tools");
    });
    await t.model.script({ reply: { content: [{ type: "text", text: "again" }] } });
    unwrap(await t.stub.start("once more"));
    await waitForStatus(t, ["done"]);
    expect(await messages(t)).toHaveLength(8);
  });

  it("at version 6 gets the image tables when it takes an image, queued messages with options, output counters and max_image_bytes, and runs on", async () => {
    const t = newTestSession();
    await runInDurableObject(t.stub, async (_instance, state) => writeAgentV6Running(state.storage, t));
    await t.model.script(
      { reply: { content: [{ type: "text", text: "answer one" }] } },
      { reply: { content: [{ type: "text", text: "answer two" }] } },
    );
    await abortAllDurableObjects();
    // The run that was going finishes, then the queued message starts its own, without a schema.
    const session = await waitForStatus(t, ["done", "failed"]);
    await t.model.waitForRequests(2);
    const done = await waitForStatus(t, ["done", "failed"]);
    expect(done).toMatchObject({
      status: "done",
      output_schema: null,
      output: null,
      queued_messages: 0,
      limits: { max_image_bytes: 3_932_160 },
    });
    expect(session.limits.max_image_bytes).toBe(3_932_160);
    await runInDurableObject(t.stub, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(SESSION_MIGRATIONS));
      // Made by version 7 and dropped by version 14 while empty: made again with the first image.
      expect(userTables(state.storage)).not.toContain("images");
      expect(state.storage.kv.get<RunState>("run")).toMatchObject({ invalid_outputs: 0, output_error: null });
    });
    expect((await messages(t)).map((m) => m.content)).toEqual([
      [{ type: "text", text: "first" }],
      [{ type: "text", text: "answer one" }],
      [{ type: "text", text: "queued" }],
      [{ type: "text", text: "answer two" }],
    ]);
    // And takes an image and a schema from then on.
    await t.model.script({ reply: { content: [{ type: "tool_use", id: "toolu_r", name: "respond", input: { seen: true } }] } });
    const schema = { type: "object", properties: { seen: { type: "boolean" } }, required: ["seen"] };
    unwrap(await t.stub.start([{ type: "image", media_type: "image/png", data: pngBytes(), url: null }], null, { output_schema: schema }));
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done", output: { seen: true }, output_schema: schema });
    await runInDurableObject(t.stub, async (_instance, state) => {
      expect(userTables(state.storage)).toEqual(expect.arrayContaining(["images", "image_chunks"]));
      expect(state.storage.sql.exec("SELECT COUNT(*) AS n FROM images").one().n).toBe(1);
    });
  });

  it("from before schedules (no max_schedules, no request keys) takes a keyed message once and gets the tenant's max_schedules", async () => {
    const t = newTestSession();
    await runInDurableObject(t.stub, async (_instance, state) => writeAgentV2(state.storage, t));
    await abortAllDurableObjects();
    expect(unwrap(await t.stub.requestOutcome("schedule:sch_x:1"))).toBeNull();
    await t.model.script({ reply: { content: [{ type: "text", text: "keyed" }] } });
    const cap = { ...BUILTIN_DEFAULT_LIMITS, max_schedules: 7 };
    const started = unwrap((await t.stub.start("keyed once", cap, {}, "schedule:sch_x:1")) as SessionResult<Session>);
    // Version 8 wrote out the image limit of its time; the tenant's cap brings the limits added since.
    expect(started.limits).toEqual({
      ...LIMITS_BEFORE_SCHEDULES,
      max_image_bytes: DEFAULT_MAX_IMAGE_BYTES,
      max_schedules: 7,
      caller_share_percent: cap.caller_share_percent,
      max_streams_per_session: BUILTIN_DEFAULT_LIMITS.max_streams_per_session,
      max_streams_per_tenant: BUILTIN_DEFAULT_LIMITS.max_streams_per_tenant,
      max_memory_items: BUILTIN_DEFAULT_LIMITS.max_memory_items,
      max_memory_bytes: BUILTIN_DEFAULT_LIMITS.max_memory_bytes,
      max_agent_depth: BUILTIN_DEFAULT_LIMITS.max_agent_depth,
      max_subagents_per_run: BUILTIN_DEFAULT_LIMITS.max_subagents_per_run,
      max_sessions_per_tree: BUILTIN_DEFAULT_LIMITS.max_sessions_per_tree,
      max_model_calls_per_tree: BUILTIN_DEFAULT_LIMITS.max_model_calls_per_tree,
      max_cost_usd_per_day: null,
      max_tokens_per_day_per_subject: null,
      max_cost_usd_per_session: null,
      end_user_tokens_per_minute: BUILTIN_DEFAULT_LIMITS.end_user_tokens_per_minute,
      end_user_requests_per_minute: BUILTIN_DEFAULT_LIMITS.end_user_requests_per_minute,
      max_credentials_per_end_user: BUILTIN_DEFAULT_LIMITS.max_credentials_per_end_user,
      max_credentials_per_tenant: BUILTIN_DEFAULT_LIMITS.max_credentials_per_tenant,
      exports_per_minute: BUILTIN_DEFAULT_LIMITS.exports_per_minute,
    });
    await waitForStatus(t, ["done"]);
    expect(unwrap((await t.stub.start("keyed once", cap, {}, "schedule:sch_x:1")) as SessionResult<Session>).status).toBe("done");
    expect(unwrap(await t.stub.requestOutcome("schedule:sch_x:1"))).toBe("started");
    expect(await messages(t)).toHaveLength(8);
  });

  it("at version 8 gets messages.omitted, its refused last run marked, and its next run is sent without the refused exchange", async () => {
    const t = newTestSession();
    await runInDurableObject(t.stub, async (_instance, state) => writeRefusedSessionV8(state.storage, t));
    await abortAllDurableObjects();
    await t.model.script({ reply: { content: [{ type: "text", text: "noon" }] } });
    unwrap(await t.stub.start("what time is it?"));
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done", stop_reason: "end_turn" });
    await runInDurableObject(t.stub, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(SESSION_MIGRATIONS));
      expect(state.storage.sql.exec("SELECT seq, omitted FROM messages ORDER BY seq").toArray()).toEqual([
        { seq: 1, omitted: 0 },
        { seq: 2, omitted: 0 },
        { seq: 3, omitted: 1 },
        { seq: 4, omitted: 1 },
        { seq: 5, omitted: 0 },
        { seq: 6, omitted: 0 },
      ]);
    });
    // The history keeps everything; the model is sent the earlier exchange and the new message only.
    expect(await messages(t)).toHaveLength(6);
    const [request] = await t.model.requests();
    const turns = (request!.body as { messages: { role: string; content: { text: string }[] }[] }).messages;
    expect(turns.map((turn) => [turn.role, turn.content.map((block) => block.text)])).toEqual([
      ["user", ["hello"]],
      ["assistant", ["hi there"]],
      ["user", ["what time is it?"]],
    ]);
  });

  it("at version 9 (before sub-agents) has no subagents table until it needs one, shows no parent and no children's usage, and runs on", async () => {
    const t = newTestSession();
    await runInDurableObject(t.stub, async (_instance, state) => {
      migrateSessionTo(state.storage, 9);
      writeLegacySession(state.storage, t, { version: 9, statements: [] });
    });
    await abortAllDurableObjects();
    const session = unwrap(await t.stub.get());
    expect(session).toMatchObject({
      status: "done",
      parent: null,
      usage: { steps: 1, subagents: { steps: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 } },
    });
    expect(session).not.toHaveProperty("depth");
    await runInDurableObject(t.stub, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(SESSION_MIGRATIONS));
      expect(userTables(state.storage)).not.toContain("subagents");
    });
    await t.model.script({ reply: { content: [{ type: "text", text: "again" }] } });
    unwrap(await t.stub.start("once more"));
    expect(await waitForStatus(t, ["done"])).toMatchObject({ status: "done", usage: { steps: 2 } });
  });

  it("a new session starts at the newest version", async () => {
    const t = newTestSession();
    await createAndStart(t, "hello");
    await runInDurableObject(t.stub, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(SESSION_MIGRATIONS));
    });
  });
});

describe("session object storage written by version 6 (before notifications and decisions)", () => {
  it("gets the decision columns and an outbox key when it first notifies; its waiting call is approved, recorded and notified", async () => {
    const t = newTestSession();
    await runInDurableObject(t.stub, async (_instance, state) => writeWaitingAgentV6(state.storage, t));
    const hook = mockHook(uniqueKey("receiver"));
    const index = tenantIndexStub(env, t.tenantId);
    const endpoint = await index.createWebhookEndpoint(t.tenantId, {
      url: hook.url,
      event_types: ["session.done"],
      description: null,
      created_by: "admin",
    });
    expect(endpoint.ok).toBe(true);
    await abortAllDurableObjects();

    const before = unwrap(await t.stub.get());
    expect(before).toMatchObject({ status: "waiting_approval", notify_url: null });
    await runInDurableObject(t.stub, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(SESSION_MIGRATIONS));
      // The outbox table version 7 made is dropped by version 14 while empty; since version 16 the outbox is a key.
      expect(userTables(state.storage)).not.toContain("outbox");
    });
    expect((await toolCalls(t))[0]).toMatchObject({ id: "toolu_legacy", status: "waiting_approval", decided_by: null, decision: null });

    await t.model.script({ reply: { content: [{ type: "text", text: "noon" }] } });
    expect((await t.stub.approve("toolu_legacy", "carol")).ok).toBe(true);
    await waitForStatus(t, ["done"]);
    expect((await toolCalls(t))[0]).toMatchObject({ status: "done", decided_by: "carol", decision: "approved" });
    const [request] = await hook.waitForRequests(1);
    expect(request!.body).toMatchObject({ type: "session.done", session: { id: t.sessionId, status: "done" } });
    // Handed over: the key went with its last entry, and no table was made.
    await expect
      .poll(() =>
        runInDurableObject(t.stub, async (_instance, state) => [
          userTables(state.storage).includes("outbox"),
          state.storage.kv.get("outbox") ?? null,
        ]),
      )
      .toEqual([false, null]);
  });
});

/** The TenantIndex's last version before session titles and metadata (renumber here only). */
const INDEX_VERSION_BEFORE_TITLES = 10;

describe("TenantIndex storage", () => {
  it("written by version 4 (before status webhooks) gets the endpoint and delivery tables and keeps its rows", async () => {
    const tenantId = freshTenant();
    await runInDurableObject(tenantIndexStub(env, tenantId), async (_instance, state) => {
      migrateIndexTo(state.storage, 4);
      writeLegacyIndex(state.storage, tenantId, { statements: [] });
    });
    await abortAllDurableObjects();
    const index = tenantIndexStub(env, tenantId);
    expect((await index.listSessions(tenantId, { limit: 10 })).data.map((s) => s.id)).toEqual(["ses_legacy"]);
    const created = await index.createWebhookEndpoint(tenantId, {
      url: "https://hooks.example.com/x",
      event_types: ["session.failed"],
      description: null,
      created_by: "admin",
    });
    expect(created.ok).toBe(true);
    expect((await index.listWebhookEndpoints(tenantId, { limit: 10 })).data).toHaveLength(1);
    await runInDurableObject(index, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(TENANT_INDEX_MIGRATIONS));
      expect(userTables(state.storage)).toEqual(expect.arrayContaining(["webhook_endpoints", "webhook_deliveries"]));
    });
  });

  it("written by an earlier version is migrated on wake and keeps its rows", async () => {
    const tenantId = freshTenant();
    await runInDurableObject(tenantIndexStub(env, tenantId), async (_instance, state) =>
      writeLegacyIndex(state.storage, tenantId, INDEX_LAYOUT_V0),
    );
    await abortAllDurableObjects();
    const index = tenantIndexStub(env, tenantId);
    const page = await index.listSessions(tenantId, { limit: 10 });
    expect(page.data.map((s) => s.id)).toEqual(["ses_legacy"]);
    await runInDurableObject(index, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(TENANT_INDEX_MIGRATIONS));
      expect(userTables(state.storage)).toContain("event_streams");
    });
  });

  it("at version 1 gets cache counts of zero and counts them from then on", async () => {
    const tenantId = freshTenant();
    await runInDurableObject(tenantIndexStub(env, tenantId), async (_instance, state) =>
      writeLegacyIndex(state.storage, tenantId, INDEX_LAYOUT_V1),
    );
    await abortAllDurableObjects();
    const index = tenantIndexStub(env, tenantId);
    expect((await index.getSessionSummary(tenantId, "ses_legacy"))?.usage).toEqual({
      steps: 1,
      input_tokens: 10,
      output_tokens: 5,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    });
    const at = "2026-11-20T10:00:00.000Z";
    await index.reportSession(tenantId, {
      id: "ses_legacy",
      created_by: "user-1",
      status: "done",
      stop_reason: "end_turn",
      usage: { steps: 2, input_tokens: 20, output_tokens: 10, cache_read_tokens: 100, cache_write_tokens: 50 },
      created_at: at,
      updated_at: at,
      revision: 4,
    });
    expect(await index.tokensToday(tenantId, Date.parse(at))).toBe(10 + 5 + 150);
    await runInDurableObject(index, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(TENANT_INDEX_MIGRATIONS));
    });
  });

  it("written by version 5 carries its noted streams into open_streams, where a revocation finds their session and a recount drops them", async () => {
    const tenantId = freshTenant();
    const deadline = Date.now() + 3_600_000;
    await runInDurableObject(tenantIndexStub(env, tenantId), async (_instance, state) => {
      migrateIndexTo(state.storage, 5);
      writeLegacyIndex(state.storage, tenantId, { statements: [] });
      // As version 5's noteStream wrote them: one row per session and key.
      state.storage.sql.exec(
        "INSERT INTO event_streams (session_id, key_id, expires_at) VALUES ('ses_legacy', 'key_000000000000000000000001', ?), ('ses_legacy', '', ?)",
        deadline,
        deadline,
      );
    });
    await abortAllDurableObjects();
    const index = tenantIndexStub(env, tenantId);
    await index.setLimitOverrides(tenantId, { max_streams_per_tenant: 2 });
    const carried = await runInDurableObject(index, (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(TENANT_INDEX_MIGRATIONS));
      return state.storage.sql.exec("SELECT session_id, key_id, expires_at FROM open_streams WHERE key_id != '' ").toArray();
    });
    expect(carried).toEqual([{ session_id: "ses_legacy", key_id: "key_000000000000000000000001", expires_at: deadline }]);
    // Two carried rows fill a cap of two; they name no live stream, so the recount at the cap drops them.
    const noted = await index.noteEventStream(tenantId, {
      sessionId: "ses_new",
      streamId: "st_new",
      keyId: null,
      expiresAt: deadline,
      now: Date.now(),
    });
    expect(noted).toEqual({ ok: true, expiresAt: deadline });
    const rows = await runInDurableObject(index, (_instance, state) =>
      state.storage.sql.exec("SELECT stream_id FROM open_streams").toArray(),
    );
    expect(rows).toEqual([{ stream_id: "st_new" }]);
  });

  it("written by version 6 (before agents) keeps its sessions with no agent, and lists sessions by agent from then on", async () => {
    const tenantId = freshTenant();
    await runInDurableObject(tenantIndexStub(env, tenantId), async (_instance, state) => {
      migrateIndexTo(state.storage, 6);
      writeLegacyIndex(state.storage, tenantId, { statements: [] });
    });
    await abortAllDurableObjects();
    const index = tenantIndexStub(env, tenantId);
    expect((await index.getSessionSummary(tenantId, "ses_legacy"))?.agent).toBeNull();
    const at = "2026-12-01T10:00:00.000Z";
    const report = {
      created_by: "user-1",
      status: "done",
      stop_reason: "end_turn",
      usage: { steps: 1, input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0 },
      created_at: at,
      updated_at: at,
      revision: 1,
    } as const;
    await index.reportSession(tenantId, { ...report, id: "ses_from_agent", agent: { id: "agt_AAAAAAAAAAAAAAAAAAAAAAAA", version: 3 } });
    // A report from a session object of the code before agents carries no `agent` at all.
    await index.reportSession(tenantId, { ...report, id: "ses_older_code" });
    const byAgent = await index.listSessions(tenantId, { limit: 10, agent_id: "agt_AAAAAAAAAAAAAAAAAAAAAAAA" });
    expect(byAgent.data.map((s) => [s.id, s.agent])).toEqual([["ses_from_agent", { id: "agt_AAAAAAAAAAAAAAAAAAAAAAAA", version: 3 }]]);
    expect((await index.listSessions(tenantId, { limit: 10 })).data.map((s) => s.id).sort()).toEqual([
      "ses_from_agent",
      "ses_legacy",
      "ses_older_code",
    ]);
    await runInDurableObject(index, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(TENANT_INDEX_MIGRATIONS));
    });
  });

  it("written by version 14 (before budget reservations) holds each run's worst case against a daily budget from then on", async () => {
    const tenantId = freshTenant();
    await runInDurableObject(tenantIndexStub(env, tenantId), async (_instance, state) => {
      migrateIndexTo(state.storage, 14);
      writeLegacyIndex(state.storage, tenantId, { statements: [] });
    });
    await abortAllDurableObjects();
    const index = tenantIndexStub(env, tenantId);
    const now = Date.now();
    const run = (sessionId: string) => ({
      sessionId,
      maxConcurrent: 10,
      maxTokensPerDay: 1000,
      createdBy: "user-1",
      reserveTokens: 600,
      now,
    });
    // The legacy session is kept; the first run reserves 600 of the 1,000, the second sees 600 held and passes, the third not.
    expect((await index.getSessionSummary(tenantId, "ses_legacy"))?.id).toBe("ses_legacy");
    expect((await index.admitRun(tenantId, run("ses_a"))).ok).toBe(true);
    expect((await index.admitRun(tenantId, run("ses_b"))).ok).toBe(true);
    expect(await index.admitRun(tenantId, run("ses_c"))).toMatchObject({ ok: false, code: "budget_used" });
    // A start that failed gives its reservation back with its slot.
    await index.releaseRun(tenantId, "ses_b", true);
    expect((await index.admitRun(tenantId, run("ses_c"))).ok).toBe(true);
    await runInDurableObject(index, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(TENANT_INDEX_MIGRATIONS));
      expect(userTables(state.storage)).toContain("budget_reservations");
    });
  });

  it("written by version 7 (before sub-agents) keeps its sessions with no parent, and lists a session's children from then on", async () => {
    const tenantId = freshTenant();
    await runInDurableObject(tenantIndexStub(env, tenantId), async (_instance, state) => {
      migrateIndexTo(state.storage, 7);
      writeLegacyIndex(state.storage, tenantId, { statements: [] });
    });
    await abortAllDurableObjects();
    const index = tenantIndexStub(env, tenantId);
    expect((await index.getSessionSummary(tenantId, "ses_legacy"))?.parent_session_id).toBeNull();
    const at = "2026-12-01T10:00:00.000Z";
    const report = {
      created_by: "user-1",
      status: "done",
      stop_reason: "end_turn",
      usage: { steps: 1, input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0 },
      created_at: at,
      updated_at: at,
      revision: 1,
    } as const;
    await index.reportSession(tenantId, { ...report, id: "ses_child", parent_session_id: "ses_legacy" });
    // A report from a session object of the code before sub-agents carries no parent at all.
    await index.reportSession(tenantId, { ...report, id: "ses_older_code" });
    const children = await index.listSessions(tenantId, { limit: 10, parent_session_id: "ses_legacy" });
    expect(children.data.map((s) => [s.id, s.parent_session_id])).toEqual([["ses_child", "ses_legacy"]]);
    expect((await index.getSessionSummary(tenantId, "ses_older_code"))?.parent_session_id).toBeNull();
    await runInDurableObject(index, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(TENANT_INDEX_MIGRATIONS));
    });
  });

  it("written by the version before titles keeps its sessions untitled until they report again, then titles and finds them by metadata", async () => {
    const tenantId = freshTenant();
    await runInDurableObject(tenantIndexStub(env, tenantId), async (_instance, state) => {
      migrateIndexTo(state.storage, INDEX_VERSION_BEFORE_TITLES);
      writeLegacyIndex(state.storage, tenantId, { statements: [] });
    });
    await abortAllDurableObjects();
    const index = tenantIndexStub(env, tenantId);
    expect((await index.getSessionSummary(tenantId, "ses_legacy"))?.title).toBeNull();
    expect((await index.listSessions(tenantId, { limit: 10, metadata: { ticket: "T-1" } })).data).toEqual([]);
    const at = "2026-12-01T10:00:00.000Z";
    const report = {
      created_by: "user-1",
      status: "done",
      stop_reason: "end_turn",
      usage: { steps: 1, input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0 },
      created_at: at,
      updated_at: at,
    } as const;
    // Its session object, now on the new code, reports its title and metadata with its next change.
    await index.reportSession(tenantId, {
      ...report,
      id: "ses_legacy",
      revision: 9,
      title: "an old question",
      metadata: { ticket: "T-1" },
    });
    // A report from a session object of the code before titles carries neither.
    await index.reportSession(tenantId, { ...report, id: "ses_older_code", revision: 1 });
    expect((await index.listSessions(tenantId, { limit: 10, metadata: { ticket: "T-1" } })).data.map((s) => [s.id, s.title])).toEqual([
      ["ses_legacy", "an old question"],
    ]);
    expect((await index.getSessionSummary(tenantId, "ses_older_code"))?.title).toBeNull();
  });

  it("written by the version before usage rollups keeps its daily totals, unattributed, and counts by model, key, creator and agent from then on", async () => {
    const tenantId = freshTenant();
    await runInDurableObject(tenantIndexStub(env, tenantId), async (_instance, state) => {
      migrateIndexTo(state.storage, INDEX_VERSION_BEFORE_ROLLUPS);
      writeLegacyIndex(state.storage, tenantId, { statements: [] });
      state.storage.sql.exec(
        `INSERT INTO usage_daily (day, input_tokens, output_tokens, steps, sessions_created) VALUES ('2026-11-20', 10, 5, 1, 1), ('2026-11-19', 0, 0, 0, 1)`,
      );
      state.storage.sql.exec(
        `INSERT INTO api_keys (key_id, name, scopes, hash, created_by, created_at) VALUES ('key_old', 'old', '["sessions:read"]', 'h', 'admin', ?)`,
        Date.parse("2026-11-01T00:00:00Z"),
      );
    });
    await abortAllDurableObjects();
    const index = tenantIndexStub(env, tenantId);
    const range = { from: "2026-11-01", to: "2026-11-30", group_by: ["day", "model", "api_key", "created_by", "agent"] };
    const zero = { runs: 0, cache_read_tokens: 0, cache_write_tokens: 0 };
    const before = {
      day: "2026-11-20",
      model: "",
      api_key_id: "",
      created_by: "",
      agent_id: "",
      ...zero,
      steps: 1,
      input_tokens: 10,
      output_tokens: 5,
    };
    expect(await index.usageRollup(tenantId, range)).toEqual([before]);
    // The old session runs again under the new code: only what it spent since counts, under its model and key.
    const at = "2026-11-21T10:00:00.000Z";
    await index.reportSession(tenantId, {
      id: "ses_legacy",
      created_by: "user-1",
      status: "done",
      stop_reason: "end_turn",
      created_at: "2026-11-20T10:00:00.000Z",
      updated_at: at,
      revision: 4,
      usage: { steps: 2, input_tokens: 30, output_tokens: 10, cache_read_tokens: 0, cache_write_tokens: 0 },
      model: "claude-sonnet-4-5",
      api_key_id: "key_old",
      runs: 1,
    });
    expect(await index.usageRollup(tenantId, range)).toEqual([
      before,
      {
        day: "2026-11-21",
        model: "anthropic:claude-sonnet-4-5",
        api_key_id: "key_old",
        created_by: "user-1",
        agent_id: "",
        ...zero,
        runs: 1,
        steps: 1,
        input_tokens: 20,
        output_tokens: 5,
      },
    ]);
    expect((await index.listApiKeys(tenantId, { limit: 10 })).data[0]).toMatchObject({ key_id: "key_old" });
    expect((await index.listApiKeys(tenantId, { limit: 10 })).data[0]?.max_tokens_per_day).toBeUndefined();
    await runInDurableObject(index, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(TENANT_INDEX_MIGRATIONS));
    });
  });

  it("of a tenant named only by an unverified API key is never created", async () => {
    const tenantId = freshTenant("ghost");
    const { plaintext } = await legacyKey(tenantId);
    for (let i = 0; i < 3; i++) {
      const response = await call("/v1/tenant", { headers: { Authorization: `Bearer ${plaintext}` } });
      expect(response.status).toBe(401);
    }
    await runInDurableObject(tenantIndexStub(env, tenantId), async (_instance, state) => {
      expect([...state.storage.kv.list()]).toEqual([]);
      expect(userTables(state.storage)).toEqual([]);
    });
  });
});

describe("Scheduler storage written by version 1 (schedules bound to nothing but their creator's scopes)", () => {
  it("gets expires_at: a day from the migration for plain-JWT schedules, none for key-bound and tenant-admin ones", async () => {
    const tenantId = freshTenant();
    const key = "key_0123456789abcdef01234567";
    await runInDurableObject(schedulerStub(env, tenantId), async (_instance, state) =>
      writeSchedulerV1(state.storage, tenantId, [
        {
          id: "sch_key",
          created_by: `key:${key}`,
          scopes: ["sessions:read", "sessions:write"],
          via: "api_key",
          key_id: key,
          cron: "0 * * * *",
        },
        { id: "sch_exchanged", created_by: `key:${key}`, scopes: ["sessions:write"], via: "jwt", key_id: key, cron: "0 * * * *" },
        { id: "sch_admin", created_by: "admin", scopes: ["tenant:admin"], via: "jwt", key_id: null, cron: "0 * * * *" },
        { id: "sch_user", created_by: "user-1", scopes: ["sessions:read", "sessions:write"], via: "jwt", key_id: null, cron: "0 * * * *" },
      ]),
    );
    await abortAllDurableObjects();
    const before = Date.now();
    const scheduler = schedulerStub(env, tenantId);
    const page = (await scheduler.list(tenantId, { created_by: null, limit: 10, cursor: null })) as unknown as Page<Schedule>;
    const after = Date.now();
    const expiry = Object.fromEntries(page.data.map((schedule) => [schedule.id, schedule.expires_at]));
    expect(expiry).toMatchObject({ sch_key: null, sch_exchanged: null, sch_admin: null });
    const userExpiry = Date.parse(expiry.sch_user ?? "");
    expect(userExpiry).toBeGreaterThanOrEqual(before + LEGACY_SCHEDULE_GRACE_MS);
    expect(userExpiry).toBeLessThanOrEqual(after + LEGACY_SCHEDULE_GRACE_MS);
    // Still active, and still firing until then; past it, its gate disables it without asking anyone.
    expect(page.data.every((schedule) => schedule.status === "active")).toBe(true);
    await runInDurableObject(scheduler, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(SCHEDULER_MIGRATIONS));
      const creator = creatorOf(getSchedule(state.storage.sql, "sch_user")!);
      expect(await openGate(env, tenantId, creator, userExpiry)).toEqual({ kind: "disable", reason: "creator_expired" });
    });
  });
});

describe("MemoryStore storage written by version 1 (before the item count and the index's scope)", () => {
  const items: LegacyMemoryItem[] = [
    { namespace: "users.u_1", key: "language", value: { note: "answers in French" }, body: "language note answers in French" },
    { namespace: "users.u_1.episodes", key: "trip", value: { note: "French pastries in Lyon" }, body: "trip note French pastries in Lyon" },
    { namespace: "users.u_10", key: "language", value: { note: "French only" }, body: "language note French only" },
    { namespace: "teams.t_1.a.b", key: "deep", value: { note: "a deep French note" }, body: "deep note a deep French note" },
    { namespace: "solo", key: "top", value: { note: "French at the top" }, body: "top note French at the top" },
  ];

  it("gets its count and its scoped index on wake, and searches, caps and writes as new storage does", async () => {
    const tenantId = freshTenant();
    await runInDurableObject(memoryStoreStub(env, tenantId), async (_instance, state) => writeMemoryV1(state.storage, tenantId, items));
    await abortAllDurableObjects();
    const stub = memoryStoreStub(env, tenantId);
    const search = async (prefix: string[], query = "French") =>
      (
        (await stub.search(tenantId, { prefixes: [prefix], query, filter: {}, limit: 10, offset: 0, now: Date.now() })) as unknown as {
          value: ScoredItem[];
        }
      ).value
        .map((item) => `${item.namespace.join(".")}/${item.key}`)
        .sort();
    expect(await search(["users", "u_1"])).toEqual(["users.u_1.episodes/trip", "users.u_1/language"]);
    expect(await search(["users", "u_1", "episodes"])).toEqual(["users.u_1.episodes/trip"]);
    expect(await search(["teams", "t_1", "a"])).toEqual(["teams.t_1.a.b/deep"]);
    expect(await search(["solo"])).toEqual(["solo/top"]);
    expect(await search([])).toHaveLength(items.length);
    expect(await search(["users"], "lyon pastries")).toEqual(["users.u_1.episodes/trip"]);

    // The count carried over: a sixth item is past a cap of five, a new version is not.
    const put = async (namespace: string[], key: string) =>
      (await stub.put(tenantId, {
        namespace,
        key,
        value: { note: "later French" },
        ttlSeconds: null,
        refreshTtl: false,
        createdBy: "user-2",
        maxItems: items.length,
        maxBytes: 1_000_000,
        now: Date.now(),
      })) as MemoryResult<MemoryItem>;
    expect(await put(["solo"], "sixth")).toMatchObject({ ok: false, reason: "limit_reached" });
    expect(await put(["solo"], "top")).toMatchObject({ ok: true, value: { version: 2 } });
    expect((await stub.remove(tenantId, ["users", "u_10"], "language", Date.now())).ok).toBe(true);
    expect(await put(["solo"], "sixth")).toMatchObject({ ok: true, value: { version: 1 } });
    expect(await search(["solo"], "later")).toEqual(["solo/sixth", "solo/top"]);

    await runInDurableObject(stub, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(MEMORY_STORE_MIGRATIONS));
      expect(state.storage.sql.exec("SELECT n FROM item_count").one().n).toBe(items.length);
      // The scope the migration wrote in SQL is the one a put writes: each of its tokens finds the
      // item (the index keeps no text since migration 8, so it is asked, not read).
      const rows = state.storage.sql.exec<{ id: number; namespace: string }>("SELECT id, namespace FROM items").toArray();
      expect(rows).toHaveLength(items.length);
      for (const row of rows)
        for (const token of new Set(scopeText(row.namespace).split(" "))) {
          const found = state.storage.sql
            .exec<{ id: number }>(`SELECT rowid AS id FROM items_fts WHERE items_fts MATCH ?`, `scope : "${token.toUpperCase()}"`)
            .toArray()
            .map((hit) => hit.id);
          expect(found, `${row.namespace} ${token}`).toContain(row.id);
        }
    });
  });
});
