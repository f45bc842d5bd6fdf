/**
 * The delivery log in the tenant index: intake of handed-over notifications (each event once
 * per receiver), fairness between receivers, the bounds of retention, and the checks at the
 * object's RPC boundary.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { newEventId } from "../../src/notifications/ids";
import {
  BACKLOG_FULL_ERROR,
  DELIVERY_RETENTION_MS,
  MAX_PENDING_DELIVERIES_PER_TARGET,
  MAX_SETTLED_DELIVERIES_PER_TARGET,
} from "../../src/notifications/retention";
import type { Notification, NotificationBatch } from "../../src/notifications/types";
import { addDelivery, beginAttempt, dueDeliveries, type NewDelivery, pruneDeliveries } from "../../src/notifications/delivery-store";
import { expectIndexRejects, freshTenant, indexOf } from "../tenants/helpers";

const DAY_MS = 24 * 60 * 60 * 1000;

/** A tenant whose index exists, with one endpoint for `session.done` (no receiver behind it: deliveries stay owed or fail). */
async function enteredIndex() {
  const tenantId = freshTenant("log");
  const index = indexOf(tenantId);
  const created = await index.createWebhookEndpoint(tenantId, {
    url: "http://127.0.0.1:9/x",
    event_types: ["session.done"],
    description: null,
    created_by: "admin",
  });
  if (!created.ok) throw new Error("endpoint not created");
  return { tenantId, index, endpointId: created.endpoint.id };
}

function notification(tenantId: string, sessionId: string, type: Notification["type"] = "session.done"): Notification {
  const at = new Date().toISOString();
  return {
    id: newEventId(),
    type,
    created_at: at,
    tenant_id: tenantId,
    session: {
      id: sessionId,
      tenant_id: tenantId,
      created_by: "user-1",
      status: "done",
      stop_reason: "end_turn",
      error: null,
      model: "m",
      usage: { steps: 1, input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0 },
      metadata: null,
      created_at: at,
      updated_at: at,
      waiting_tool_calls: [],
    },
  };
}

function delivery(target: string, overrides: Partial<NewDelivery> = {}): NewDelivery {
  return {
    target,
    endpoint_id: target,
    event_id: newEventId(),
    event_type: "session.done",
    session_id: "ses_x",
    url: "http://127.0.0.1:9/x",
    body: "{}",
    ...overrides,
  };
}

describe("taking notifications", () => {
  it("makes one delivery per subscribed endpoint and one for the notify URL, and none again for a repeated hand-off", async () => {
    const { tenantId, index, endpointId } = await enteredIndex();
    const batch: NotificationBatch = {
      session_id: "ses_one",
      notify_url: "http://127.0.0.1:9/n",
      notifications: [notification(tenantId, "ses_one"), notification(tenantId, "ses_one", "session.waiting_tool_output")],
    };
    // session.done goes to the endpoint and the notify URL; waiting_tool_output only to the notify URL.
    expect(await index.acceptNotifications(tenantId, batch)).toEqual({ deliveries: 3 });
    expect(await index.acceptNotifications(tenantId, batch)).toEqual({ deliveries: 0 });
    const rows = await runInDurableObject(index, (_i, state) =>
      state.storage.sql
        .exec<{ target: string; endpoint_id: string | null; event_type: string }>(
          "SELECT target, endpoint_id, event_type FROM webhook_deliveries ORDER BY target, event_type",
        )
        .toArray(),
    );
    expect(rows).toEqual([
      { target: "notify:http://127.0.0.1:9/n", endpoint_id: null, event_type: "session.done" },
      { target: "notify:http://127.0.0.1:9/n", endpoint_id: null, event_type: "session.waiting_tool_output" },
      { target: endpointId, endpoint_id: endpointId, event_type: "session.done" },
    ]);
  });

  it("drops a notification nobody receives", async () => {
    const tenantId = freshTenant("log");
    const index = indexOf(tenantId);
    expect(
      await index.acceptNotifications(tenantId, {
        session_id: "ses_a",
        notify_url: null,
        notifications: [notification(tenantId, "ses_a")],
      }),
    ).toEqual({ deliveries: 0 });
  });

  it("refuses a batch that is not what a session object sends", async () => {
    const { tenantId } = await enteredIndex();
    const other = notification(freshTenant("other"), "ses_a");
    await expectIndexRejects(
      tenantId,
      (i) => i.acceptNotifications(tenantId, { session_id: "ses_a", notify_url: null, notifications: [other] }),
      /another tenant/,
    );
    const badId = { ...notification(tenantId, "ses_a"), id: "evt_short" };
    await expectIndexRejects(
      tenantId,
      (i) => i.acceptNotifications(tenantId, { session_id: "ses_a", notify_url: null, notifications: [badId] }),
      /not an event id/,
    );
    const wrongSession = notification(tenantId, "ses_b");
    await expectIndexRejects(
      tenantId,
      (i) => i.acceptNotifications(tenantId, { session_id: "ses_a", notify_url: null, notifications: [wrongSession] }),
      /this session/,
    );
    await expectIndexRejects(
      tenantId,
      (i) => i.acceptNotifications(tenantId, { session_id: "ses_a", notify_url: "HTTPS://X.example/", notifications: [] }),
      /normalized/,
    );
  });
});

describe("the delivery queue", () => {
  it("takes at most a few of one receiver's backlog per pass, so another receiver is not held back", async () => {
    const { index } = await enteredIndex();
    await runInDurableObject(index, (_i, state) => {
      const sql = state.storage.sql;
      const now = Date.now();
      for (let i = 0; i < 30; i++) addDelivery(sql, delivery("busy"), now - 1_000 + i);
      addDelivery(sql, delivery("quiet"), now);
      addDelivery(sql, delivery("quiet"), now);
      const due = dueDeliveries(sql, now, 10, 5);
      expect(due.filter((d) => d.target === "busy")).toHaveLength(5);
      expect(due.filter((d) => d.target === "quiet")).toHaveLength(2);
      // An attempt is counted, with its retry time, before it is made; a settled row cannot begin one.
      const first = due[0]!;
      expect(beginAttempt(sql, first.id, 1, now + 30_000, now)).toBe(true);
      expect(dueDeliveries(sql, now, 50, 50).map((d) => d.id)).not.toContain(first.id);
      sql.exec("UPDATE webhook_deliveries SET status = 'succeeded' WHERE id = ?", first.id);
      expect(beginAttempt(sql, first.id, 2, now + 30_000, now)).toBe(false);
    });
  });

  it(`records a delivery as failed at once when its receiver already owes ${MAX_PENDING_DELIVERIES_PER_TARGET}`, async () => {
    const { index } = await enteredIndex();
    await runInDurableObject(index, (_i, state) => {
      const sql = state.storage.sql;
      const now = Date.now();
      sql.exec(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO webhook_deliveries (id, target, endpoint_id, event_id, event_type, session_id, url, body, status, attempts, next_attempt_at, created_at)
         SELECT 'dlv_fill_' || i, 'flooded', 'flooded', 'evt_fill_' || i, 'session.done', 'ses_x', 'https://x.invalid/', '{}', 'pending', 3, ?, ? FROM n`,
        MAX_PENDING_DELIVERIES_PER_TARGET,
        now + DAY_MS,
        now,
      );
      expect(addDelivery(sql, delivery("flooded", { event_id: "evt_one_more" }), now)).toBe(true);
      expect(sql.exec("SELECT status, error, settled_at FROM webhook_deliveries WHERE event_id = 'evt_one_more'").one()).toEqual({
        status: "failed",
        error: BACKLOG_FULL_ERROR,
        settled_at: now,
      });
      // Another receiver is not affected.
      addDelivery(sql, delivery("fine", { event_id: "evt_fine" }), now);
      expect(sql.exec("SELECT status FROM webhook_deliveries WHERE event_id = 'evt_fine'").one().status).toBe("pending");
    });
  });
});

describe("retention", () => {
  it("drops settled deliveries after 7 days and never one still owed", async () => {
    const { index } = await enteredIndex();
    await runInDurableObject(index, (_i, state) => {
      const sql = state.storage.sql;
      const now = Date.now();
      const old = now - DELIVERY_RETENTION_MS - 1;
      addDelivery(sql, delivery("a", { event_id: "evt_old_done" }), old);
      addDelivery(sql, delivery("a", { event_id: "evt_old_owed" }), old);
      addDelivery(sql, delivery("a", { event_id: "evt_new_done" }), now - DAY_MS);
      sql.exec(
        "UPDATE webhook_deliveries SET status = 'succeeded', settled_at = created_at WHERE event_id IN ('evt_old_done', 'evt_new_done')",
      );
      expect(pruneDeliveries(sql, now)).toBe(1);
      expect(
        sql
          .exec<{ event_id: string }>("SELECT event_id FROM webhook_deliveries ORDER BY event_id")
          .toArray()
          .map((r) => r.event_id),
      ).toEqual(["evt_new_done", "evt_old_owed"]);
    });
  });

  it(`keeps the newest ${MAX_SETTLED_DELIVERIES_PER_TARGET} settled deliveries of a receiver`, async () => {
    const { index } = await enteredIndex();
    await runInDurableObject(index, (_i, state) => {
      const sql = state.storage.sql;
      const now = Date.now();
      sql.exec(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO webhook_deliveries (id, target, endpoint_id, event_id, event_type, session_id, url, body, status, attempts, created_at, settled_at)
         SELECT printf('dlv_%05d', i), 'chatty', 'chatty', printf('evt_%05d', i), 'session.done', 'ses_x', 'https://x.invalid/', '{}', 'succeeded', 1, ? + i, ? + i FROM n`,
        MAX_SETTLED_DELIVERIES_PER_TARGET + 5,
        now - DAY_MS,
        now - DAY_MS,
      );
      addDelivery(sql, delivery("chatty", { event_id: "evt_owed" }), now - 2 * DAY_MS);
      expect(pruneDeliveries(sql, now, ["chatty"])).toBe(5);
      const left = sql
        .exec<{ n: number; oldest: string }>("SELECT COUNT(*) AS n, MIN(id) AS oldest FROM webhook_deliveries WHERE status = 'succeeded'")
        .one();
      expect(left).toEqual({ n: MAX_SETTLED_DELIVERIES_PER_TARGET, oldest: "dlv_00006" });
      expect(sql.exec("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE event_id = 'evt_owed'").one().n).toBe(1);
    });
  });
});
