/**
 * The pure parts of status webhooks and approval timeouts: the retry schedule, the hand-off
 * backoff, retention, which status changes notify, approval deadlines, the alarm's inputs, the
 * signed headers, and the configuration that shortens the schedule in tests.
 */
import { describe, expect, it } from "vitest";
import { approvalDeadline, earliestApprovalDeadline, expiredApprovals } from "../../src/sessions/object/loop/approval-expiry";
import { nextWakeAt } from "../../src/sessions/object/loop/next-wake";
import type { RunState } from "../../src/sessions/object/store/store";
import { buildToolbox } from "../../src/sessions/object/tools/registry";
import { SESSION_STATUSES, type SessionStatus, type ToolCallStatus } from "../../src/session-config/types";
import { ConfigError, parseConfig } from "../../src/config";
import type { Env } from "../../src/env";
import { deliveryHeaders } from "../../src/notifications/deliver";
import { MAX_REDELIVERIES_PER_DAY, REDELIVER_INTERVAL_MS, REDELIVER_WINDOW_MS, redeliverWait } from "../../src/notifications/retention";
import { notificationFor } from "../../src/notifications/event-type";
import {
  backlogHasRoom,
  DELIVERY_RETENTION_MS,
  MAX_PENDING_DELIVERIES_PER_TARGET,
  MAX_SETTLED_DELIVERIES_PER_TARGET,
  PRUNE_BATCH,
  retentionCutoff,
  settledExcess,
} from "../../src/notifications/retention";
import {
  DELIVERY_RETRY_DELAYS_MS,
  deliveryRetryDelay,
  handoffRetryDelay,
  HANDOFF_RETRY_MAX_MS,
  MAX_DELIVERY_ATTEMPTS,
  MIN_DELIVERY_SPAN_MS,
  minimumDeliverySpan,
} from "../../src/notifications/schedule";
import { expectedSignature } from "./helpers";

const HOUR_MS = 60 * 60 * 1000;

describe("the delivery retry schedule", () => {
  it("tries 11 times, first after 30 s, and keeps trying for at least 24 hours even at the lowest jitter", () => {
    expect(MAX_DELIVERY_ATTEMPTS).toBe(11);
    expect(deliveryRetryDelay(1, 1, 0.5)).toBe(30_000);
    expect(minimumDeliverySpan()).toBeGreaterThanOrEqual(MIN_DELIVERY_SPAN_MS);
    expect(minimumDeliverySpan() / HOUR_MS).toBeCloseTo(26.7, 1);
    const longest = DELIVERY_RETRY_DELAYS_MS.reduce((sum, delay) => sum + delay, 0) * 1.1;
    expect(longest / HOUR_MS).toBeLessThan(33);
  });

  it("never shrinks from one attempt to the next, and has nothing after the last", () => {
    for (let attempts = 2; attempts < MAX_DELIVERY_ATTEMPTS; attempts++) {
      expect(deliveryRetryDelay(attempts, 1, 0.5)!).toBeGreaterThanOrEqual(deliveryRetryDelay(attempts - 1, 1, 0.5)!);
    }
    expect(deliveryRetryDelay(MAX_DELIVERY_ATTEMPTS, 1, 0.5)).toBeNull();
    expect(deliveryRetryDelay(0, 1, 0.5)).toBeNull();
    expect(deliveryRetryDelay(1.5, 1, 0.5)).toBeNull();
  });

  it("moves each delay by at most 10 % either way", () => {
    expect(deliveryRetryDelay(3, 1, 0)).toBe(9 * 60_000);
    expect(deliveryRetryDelay(3, 1, 0.999999)).toBe(11 * 60_000);
  });

  it("shortens every delay by the configured scale, and nothing else", () => {
    expect(deliveryRetryDelay(1, 0.001, 0.5)).toBe(30);
    expect(deliveryRetryDelay(10, 0.01, 0.5)).toBe(288_000);
    expect(deliveryRetryDelay(MAX_DELIVERY_ATTEMPTS, 0.001, 0.5)).toBeNull();
  });
});

describe("the hand-off backoff", () => {
  it("doubles from 5 s up to 5 minutes, and goes on for ever", () => {
    expect([1, 2, 3, 4].map(handoffRetryDelay)).toEqual([5_000, 10_000, 20_000, 40_000]);
    expect(handoffRetryDelay(50)).toBe(HANDOFF_RETRY_MAX_MS);
  });
});

describe("retention of the delivery log", () => {
  it("keeps settled deliveries 7 days, the newest 1000 of a target, and at most 5000 owed", () => {
    expect(DELIVERY_RETENTION_MS).toBe(7 * 24 * HOUR_MS);
    expect(retentionCutoff(10 * DELIVERY_RETENTION_MS)).toBe(9 * DELIVERY_RETENTION_MS);
    expect(settledExcess(MAX_SETTLED_DELIVERIES_PER_TARGET)).toBe(0);
    expect(settledExcess(MAX_SETTLED_DELIVERIES_PER_TARGET + 7)).toBe(7);
    expect(settledExcess(MAX_SETTLED_DELIVERIES_PER_TARGET + 10 * PRUNE_BATCH)).toBe(PRUNE_BATCH);
    expect(backlogHasRoom(MAX_PENDING_DELIVERIES_PER_TARGET - 1)).toBe(true);
    expect(backlogHasRoom(MAX_PENDING_DELIVERIES_PER_TARGET)).toBe(false);
  });
});

describe("which status changes notify", () => {
  const expected: Partial<Record<SessionStatus, string>> = {
    done: "session.done",
    failed: "session.failed",
    cancelled: "session.cancelled",
    waiting_approval: "session.waiting_approval",
    waiting_tool_output: "session.waiting_tool_output",
    waiting_budget: "session.waiting_budget",
  };

  it("entering one of the six statuses, from any other status", () => {
    for (const before of SESSION_STATUSES) {
      for (const after of SESSION_STATUSES) {
        expect(notificationFor(before, after), `${before} -> ${after}`).toBe(before === after ? null : (expected[after] ?? null));
      }
    }
  });

  it("never a cancel for an interrupt, which goes from running to running", () => {
    expect(notificationFor("running", "running")).toBeNull();
    expect(notificationFor("waiting_approval", "running")).toBeNull();
    expect(notificationFor("running", "cancelled")).toBe("session.cancelled");
  });
});

describe("approval deadlines", () => {
  const toolbox = buildToolbox([
    { type: "builtin", name: "get_time", requires_approval: true, approval_timeout_seconds: 60 },
    { type: "builtin", name: "http_fetch", requires_approval: true },
  ]);
  const call = (id: string, name: string, status: ToolCallStatus, createdMs: number) => ({
    id,
    name,
    status,
    created_at: new Date(createdMs).toISOString(),
  });

  it("counts from the call's creation, only while it waits for approval, only for a tool with a timeout", () => {
    expect(approvalDeadline(call("a", "get_time", "waiting_approval", 1_000), toolbox)).toBe(61_000);
    expect(approvalDeadline(call("a", "get_time", "pending", 1_000), toolbox)).toBeNull();
    expect(approvalDeadline(call("b", "http_fetch", "waiting_approval", 1_000), toolbox)).toBeNull();
    expect(approvalDeadline(call("c", "unknown_tool", "waiting_approval", 1_000), toolbox)).toBeNull();
  });

  it("finds the earliest deadline and the calls past theirs", () => {
    const calls = [
      call("late", "get_time", "waiting_approval", 5_000),
      call("early", "get_time", "waiting_approval", 1_000),
      call("none", "http_fetch", "waiting_approval", 0),
    ];
    expect(earliestApprovalDeadline(calls, toolbox)).toBe(61_000);
    expect(earliestApprovalDeadline([], toolbox)).toBeNull();
    expect(expiredApprovals(calls, toolbox, 61_000).map((c) => c.id)).toEqual(["early"]);
    expect(expiredApprovals(calls, toolbox, 65_000).map((c) => c.id)).toEqual(["late", "early"]);
  });

  it("holds for each tool an MCP server offers, from the server's own timeout", () => {
    const server = {
      type: "mcp" as const,
      name: "docs",
      url: "https://mcp.example.com/mcp",
      requires_approval: true,
      approval_timeout_seconds: 30,
    };
    const found = (tool: string) => ({
      name: `docs__${tool}`,
      server: "docs",
      remote_name: tool,
      description: tool,
      input_schema: { type: "object" },
      at_most_once: false,
    });
    const mcp = buildToolbox([server], [found("search"), found("read")]);
    expect(approvalDeadline(call("s", "docs__search", "waiting_approval", 1_000), mcp)).toBe(31_000);
    expect(approvalDeadline(call("r", "docs__read", "waiting_approval", 2_000), mcp)).toBe(32_000);
    const untimed = buildToolbox([{ ...server, approval_timeout_seconds: undefined }], [found("search")]);
    expect(approvalDeadline(call("s", "docs__search", "waiting_approval", 1_000), untimed)).toBeNull();
  });

  it("is ignored on a tool that does not require approval", () => {
    const loose = buildToolbox([{ type: "builtin", name: "get_time", approval_timeout_seconds: 60 }]);
    expect(approvalDeadline(call("a", "get_time", "waiting_approval", 0), loose)).toBeNull();
  });
});

describe("nextWakeAt with owed notifications and approval deadlines", () => {
  const NOW = 1_000_000;
  const waiting = {
    status: "waiting_approval",
    revision: 3,
    reported_revision: 3,
    urgent_revision: 3,
    report_failures: 0,
    report_retry_at: 0,
    last_report_at: 0,
    next_attempt_at: 0,
  } as RunState;

  it("wakes a waiting session for nothing else, for an approval deadline, or for a hand-off", () => {
    expect(nextWakeAt(waiting, NOW)).toBeNull();
    expect(nextWakeAt(waiting, NOW, { approvalDeadline: NOW + 5_000 })).toBe(NOW + 5_000);
    expect(nextWakeAt(waiting, NOW, { notificationsDueAt: NOW + 1_000, approvalDeadline: NOW + 5_000 })).toBe(NOW + 1_000);
    // A deadline or hand-off already past is due now, not in the past.
    expect(nextWakeAt(waiting, NOW, { approvalDeadline: NOW - 5_000 })).toBe(NOW);
    expect(nextWakeAt(waiting, NOW, { notificationsDueAt: null, approvalDeadline: null })).toBeNull();
  });
});

describe("the signed headers of a delivery", () => {
  it("carry the event id, the type, a timestamp and one signature per secret, newest first", async () => {
    const body = JSON.stringify({ id: "evt_x", type: "session.done" });
    const now = 1_767_268_800_123;
    const headers = await deliveryHeaders(
      { url: "https://hooks.example.com/x", eventId: "evt_x", eventType: "session.done", body },
      ["whsec_new", "whsec_old"],
      now,
    );
    expect(headers["Idempotency-Key"]).toBe("evt_x");
    expect(headers["X-Webhook-Event"]).toBe("session.done");
    expect(headers["X-Webhook-Timestamp"]).toBe("1767268800");
    expect(headers["X-Webhook-Signature"]).toBe(
      `${await expectedSignature("whsec_new", "1767268800", body)},${await expectedSignature("whsec_old", "1767268800", body)}`,
    );
    const single = await deliveryHeaders(
      { url: "https://hooks.example.com/x", eventId: "evt_x", eventType: "session.done", body },
      ["whsec_new"],
      now,
    );
    expect(single["X-Webhook-Signature"]).toBe(await expectedSignature("whsec_new", "1767268800", body));
  });
});

describe("NOTIFY_RETRY_SCALE", () => {
  it("is 1 unless set, and may only shorten the schedule", () => {
    expect(parseConfig({} as Env).notifyRetryScale).toBe(1);
    expect(parseConfig({ NOTIFY_RETRY_SCALE: "0.01" } as Env).notifyRetryScale).toBe(0.01);
    expect(parseConfig({ NOTIFY_RETRY_SCALE: "1" } as Env).notifyRetryScale).toBe(1);
    for (const bad of ["0", "2", "-0.5", "fast", "1e3"])
      expect(() => parseConfig({ NOTIFY_RETRY_SCALE: bad } as Env), bad).toThrow(ConfigError);
  });
});

describe("redeliverWait", () => {
  const now = 10 * REDELIVER_WINDOW_MS;
  it("allows the first redelivery, and the next one a minute after the last", () => {
    expect(redeliverWait([], now)).toBe(0);
    expect(redeliverWait([now - 10_000], now)).toBe(REDELIVER_INTERVAL_MS - 10_000);
    expect(redeliverWait([now - REDELIVER_INTERVAL_MS], now)).toBe(0);
  });

  it("allows MAX_REDELIVERIES_PER_DAY in any 24 hours, then waits for the oldest of them to age out", () => {
    const hourly = Array.from({ length: MAX_REDELIVERIES_PER_DAY }, (_, i) => now - (MAX_REDELIVERIES_PER_DAY - i) * 3_600_000);
    expect(redeliverWait(hourly.slice(1), now)).toBe(0);
    expect(redeliverWait(hourly, now)).toBe(hourly[0]! + REDELIVER_WINDOW_MS - now);
  });
});
