import { describe, expect, it } from "vitest";
import { canAccessSession, listFilterFor } from "../../../src/sessions/access";
import { sessionProblem, sessionValue, sentence } from "../../../src/sessions/client";
import { isSessionId, isToolCallId, newSessionId } from "../../../src/session-config/ids";
import { messagesAfter } from "../../../src/api/sessions/list-messages";
import { dailyBudgetRetryAfter } from "../../../src/tenants/usage";
import { ApiError } from "../../../src/api/errors";
import type { Principal } from "../../../src/auth/principal";

const member: Principal = { tenantId: "acme", subject: "alice", scopes: ["sessions:read", "sessions:write"], via: "jwt" };
const admin: Principal = { tenantId: "acme", subject: "root", scopes: ["tenant:admin"], via: "jwt" };

describe("session ids", () => {
  it("makes unguessable, distinct ids that it accepts", () => {
    const ids = new Set(Array.from({ length: 200 }, () => newSessionId()));
    expect(ids.size).toBe(200);
    for (const id of ids) {
      expect(id).toMatch(/^ses_[A-Za-z0-9_-]{24}$/);
      expect(isSessionId(id)).toBe(true);
    }
  });

  it.each([
    "",
    "ses_",
    "ses_short",
    "key_0123456789abcdef01234567",
    "ses_../../etc/passwd/xxxxxxxxxxxx",
    `ses_${"a".repeat(100)}`,
    "ses_aaaaaaaaaaaaaaaaaaaaaaaa%2F",
  ])("refuses %j", (id) => expect(isSessionId(id)).toBe(false));

  it("accepts provider tool-call ids and refuses anything path-like", () => {
    expect(isToolCallId("toolu_01A09q90qw90lq917835lq9")).toBe(true);
    expect(isToolCallId("call_abc-123")).toBe(true);
    expect(isToolCallId("../x")).toBe(false);
    expect(isToolCallId("a".repeat(129))).toBe(false);
  });
});

describe("canAccessSession", () => {
  it("lets a member see only the sessions it created", () => {
    expect(canAccessSession(member, { tenant_id: "acme", created_by: "alice" })).toBe(true);
    expect(canAccessSession(member, { tenant_id: "acme", created_by: "bob" })).toBe(false);
  });

  it("lets a tenant admin see every session of its tenant and none of another's", () => {
    expect(canAccessSession(admin, { tenant_id: "acme", created_by: "bob" })).toBe(true);
    expect(canAccessSession(admin, { tenant_id: "other", created_by: "root" })).toBe(false);
  });
});

describe("listFilterFor", () => {
  it("forces a member's filter to its own subject", () => {
    expect(listFilterFor(member, undefined)).toEqual({ visible: true, createdBy: "alice" });
    expect(listFilterFor(member, "alice")).toEqual({ visible: true, createdBy: "alice" });
  });

  it("gives a member asking for someone else's sessions nothing", () => {
    expect(listFilterFor(member, "bob")).toEqual({ visible: false });
  });

  it("lets an admin list everyone's, or filter by any subject", () => {
    expect(listFilterFor(admin, undefined)).toEqual({ visible: true, createdBy: null });
    expect(listFilterFor(admin, "bob")).toEqual({ visible: true, createdBy: "bob" });
  });
});

describe("dailyBudgetRetryAfter", () => {
  const noon = Date.UTC(2030, 2, 10, 12, 0, 0);

  it("lets runs start while the budget lasts, or when there is none", () => {
    expect(dailyBudgetRetryAfter(999, 1000, noon)).toBeNull();
    expect(dailyBudgetRetryAfter(10 ** 9, null, noon)).toBeNull();
  });

  it("refuses once the budget is spent, until the next UTC midnight", () => {
    expect(dailyBudgetRetryAfter(1000, 1000, noon)).toBe(12 * 60 * 60);
    expect(dailyBudgetRetryAfter(5000, 1000, Date.UTC(2030, 2, 10, 23, 59, 59, 500))).toBe(1);
  });
});

describe("sessionValue", () => {
  it("returns the value of a success", () => {
    expect(sessionValue({ ok: true, value: 42 })).toBe(42);
  });

  it.each([
    [{ reason: "session_not_found" }, 404, "No such session."],
    [{ reason: "tool_call_not_found" }, 404, "No such tool call in this session."],
    [{ reason: "session_exists" }, 409, "A session with this id already exists."],
    [{ reason: "run_going" }, 409, "The session is already running; wait for the run to end or cancel it."],
    [{ reason: "wrong_status", action: "resume", status: "done" }, 409, "A done session cannot be resumed."],
    [
      { reason: "tool_call_not_waiting", status: "done", expected: "waiting_approval" },
      409,
      "The tool call is done, not waiting_approval.",
    ],
    [{ reason: "invalid", detail: "input must not be empty" }, 400, "Input must not be empty."],
  ] as const)("maps the session object's reason %o to %i with its wire text", (failure, status, detail) => {
    const problem = sessionProblem(failure);
    expect(problem).toBeInstanceOf(ApiError);
    expect(problem.status).toBe(status);
    expect(problem.detail).toBe(detail);
    expect(() => sessionValue({ ok: false, ...failure })).toThrow(detail);
  });

  it("writes details as sentences", () => {
    expect(sentence("input must not be empty")).toBe("Input must not be empty.");
    expect(sentence("Done.")).toBe("Done.");
  });
});

describe("messagesAfter", () => {
  it("starts at the beginning, after a seq, or after a cursor", () => {
    expect(messagesAfter({})).toBe(0);
    expect(messagesAfter({ after: 7 })).toBe(7);
    expect(messagesAfter({ cursor: "12" })).toBe(12);
  });
});
