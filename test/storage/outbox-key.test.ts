/**
 * Session-object migration 16 on storage version 15 wrote: the notification outbox moves from its
 * table into one key-value entry, oldest first, and the table goes; what was owed is handed over
 * in order, and the key goes with its last entry.
 */
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub } from "../../src/objects";
import { SESSION_MIGRATIONS } from "../../src/sessions/object/store/migrations";
import { type OutboxEntry, SessionStore } from "../../src/sessions/object/store/store";
import { latestVersion, migrate, schemaVersion } from "../../src/storage/migrations";
import { migrateSessionTo, putSessionStateV12, userTables } from "../support/legacy-storage";
import { newTestSession, type TestSession, unwrap } from "../support/agent-session";
import { mockHook, uniqueKey } from "../support/mock-client";
import { notificationsOf } from "../notifications/helpers";
import { newEventId } from "../../src/notifications/ids";

const BEFORE = 15;

/** The outbox table as migration 14 left a non-empty one, through version 15. */
const OUTBOX_V14 = `CREATE TABLE outbox (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL,
  type TEXT NOT NULL,
  created_at TEXT NOT NULL,
  session TEXT NOT NULL
)`;

function notificationSession(t: TestSession, at: string) {
  return {
    id: t.sessionId,
    tenant_id: t.tenantId,
    created_by: "user-1",
    status: "done",
    stop_reason: "end_turn",
    error: null,
    model: t.model.key,
    usage: { steps: 1, input_tokens: 10, output_tokens: 5, cache_read_tokens: 0, cache_write_tokens: 0 },
    metadata: null,
    created_at: at,
    updated_at: at,
    waiting_tool_calls: [],
  };
}

/** A finished session at version 15 owing `ids` (oldest first), as a crash before the hand-off leaves it. */
function writeV15(storage: DurableObjectStorage, t: TestSession, ids: readonly string[]): void {
  migrateSessionTo(storage, 12);
  const at = new Date().toISOString();
  putSessionStateV12(storage, t, at, { tools: [], status: "done", steps: 1, stopReason: "end_turn", revision: 3 });
  migrateSessionTo(storage, BEFORE);
  storage.sql.exec(
    "INSERT INTO messages (role, content, created_at, tokens, kind) VALUES ('user', ?, ?, 5, 'input')",
    JSON.stringify([{ type: "text", text: "hello" }]),
    at,
  );
  if (ids.length === 0) return;
  storage.sql.exec(OUTBOX_V14);
  for (const id of ids) {
    storage.sql.exec(
      "INSERT INTO outbox (id, type, created_at, session) VALUES (?, 'session.done', ?, ?)",
      id,
      at,
      JSON.stringify(notificationSession(t, at)),
    );
  }
}

describe(`session storage at version ${BEFORE}`, () => {
  it("moves what its outbox owes into the key, oldest first, drops the table, and hands it all over", async () => {
    const t = newTestSession();
    const hook = mockHook(uniqueKey("receiver"));
    const endpoint = await tenantIndexStub(env, t.tenantId).createWebhookEndpoint(t.tenantId, {
      url: hook.url,
      event_types: ["session.done"],
      description: null,
      created_by: "admin",
    });
    expect(endpoint.ok).toBe(true);
    const ids = [newEventId(), newEventId()];
    await runInDurableObject(t.stub, (_i, state) => {
      writeV15(state.storage, t, ids);
      // Migrated by hand here, to see the key before any hand-off could empty it.
      migrate(state.storage, SESSION_MIGRATIONS);
      expect(schemaVersion(state.storage)).toBe(latestVersion(SESSION_MIGRATIONS));
      expect(userTables(state.storage)).not.toContain("outbox");
      const owed = state.storage.kv.get<OutboxEntry[]>("outbox")!;
      expect(owed.map((entry) => [entry.id, entry.type])).toEqual(ids.map((id) => [id, "session.done"]));
      expect(owed[0]!.session).toMatchObject({ id: t.sessionId, status: "done" }); // an object again, not JSON text
    });
    await abortAllDurableObjects();

    // Woken, the object hands over what is owed (one batch, oldest first; the index delivers each
    // on its own, so they may arrive in either order), and the key goes with the last entry.
    unwrap(await t.stub.get());
    const requests = await hook.waitForRequests(2);
    expect(
      notificationsOf(requests)
        .map((n) => n.id)
        .sort(),
    ).toEqual([...ids].sort());
    await expect.poll(() => runInDurableObject(t.stub, (_i, state) => state.storage.kv.get("outbox") ?? null)).toBeNull();
  });

  it("with an empty outbox table, or none, leaves no table and no key", async () => {
    for (const ids of [[], ["evt_gone"]]) {
      const t = newTestSession();
      await runInDurableObject(t.stub, (_i, state) => {
        writeV15(state.storage, t, []);
        if (ids.length) state.storage.sql.exec(OUTBOX_V14); // made, then emptied
        migrate(state.storage, SESSION_MIGRATIONS);
        expect(userTables(state.storage)).not.toContain("outbox");
        expect(state.storage.kv.get("outbox")).toBeUndefined();
      });
    }
  });
});

describe("session storage at version 13", () => {
  it("keeps an owed notification through migration 14's rebuild of the table, and 16 moves it into the key", async () => {
    const t = newTestSession();
    await runInDurableObject(t.stub, (_i, state) => {
      migrateSessionTo(state.storage, 13);
      const at = new Date().toISOString();
      state.storage.sql.exec(
        "INSERT INTO outbox (id, type, created_at, session) VALUES ('evt_owed', 'session.done', ?, ?)",
        at,
        JSON.stringify(notificationSession(t, at)),
      );
      migrate(state.storage, SESSION_MIGRATIONS);
      expect(userTables(state.storage)).not.toContain("outbox");
      expect(state.storage.kv.get<OutboxEntry[]>("outbox")).toEqual([
        { id: "evt_owed", type: "session.done", created_at: at, session: notificationSession(t, at) },
      ]);
    });
  });
});

describe("the outbox key", () => {
  it("keeps entries oldest first, goes with its last one, and rolls back with its transaction", async () => {
    const t = newTestSession();
    await runInDurableObject(t.stub, (_i, state) => {
      writeV15(state.storage, t, []);
      migrate(state.storage, SESSION_MIGRATIONS);
      const store = new SessionStore(state.storage);
      const at = new Date().toISOString();
      const entry = (id: string): OutboxEntry => ({
        id,
        type: "session.done",
        created_at: at,
        session: notificationSession(t, at) as OutboxEntry["session"],
      });
      store.transaction(() => {
        store.appendOutbox(entry("evt_a"));
        store.appendOutbox(entry("evt_b"));
      });
      store.appendOutbox(entry("evt_c"));
      expect(store.outbox(2).map((owed) => owed.id)).toEqual(["evt_a", "evt_b"]);
      expect(store.outboxSize()).toBe(3);
      store.removeFromOutbox(["evt_b"]);
      expect(store.outbox(10).map((owed) => owed.id)).toEqual(["evt_a", "evt_c"]);
      expect(() =>
        store.transaction(() => {
          store.removeFromOutbox(["evt_a", "evt_c"]);
          throw new Error("rolled back");
        }),
      ).toThrow("rolled back");
      expect(store.outbox(10).map((owed) => owed.id)).toEqual(["evt_a", "evt_c"]);
      store.transaction(() => store.removeFromOutbox(["evt_a", "evt_c", "evt_unknown"]));
      expect(store.outboxSize()).toBe(0);
      expect(state.storage.kv.get("outbox")).toBeUndefined();
      expect(userTables(state.storage)).not.toContain("outbox");
    });
  });
});
