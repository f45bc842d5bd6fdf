import { describe, expect, it } from "vitest";
import { acceptRequestId, MAX_REQUEST_ID_LENGTH } from "../../src/api/middleware/request-id";
import { call, readProblem } from "../support/api";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("acceptRequestId", () => {
  it.each([
    ["req_123", "req_123"],
    ["a.b:c-d", "a.b:c-d"],
    ["x".repeat(MAX_REQUEST_ID_LENGTH), "x".repeat(MAX_REQUEST_ID_LENGTH)],
    ["x".repeat(MAX_REQUEST_ID_LENGTH + 1), null],
    ["", null],
    ["has space", null],
    ['quote"', null],
    ["new\nline", null],
    ["ünïcode", null],
    [undefined, null],
  ])("accepts %j as %j", (input, expected) => {
    expect(acceptRequestId(input)).toBe(expected);
  });
});

describe("X-Request-Id", () => {
  it("echoes a sane id from the request", async () => {
    const res = await call("/health", { headers: { "X-Request-Id": "trace-42" } });
    expect(res.headers.get("X-Request-Id")).toBe("trace-42");
  });

  it("generates an id when none is given", async () => {
    const res = await call("/health");
    expect(res.headers.get("X-Request-Id")).toMatch(UUID);
  });

  it("replaces an id that is too long or has unsafe characters", async () => {
    const long = await call("/health", { headers: { "X-Request-Id": "x".repeat(MAX_REQUEST_ID_LENGTH + 1) } });
    expect(long.headers.get("X-Request-Id")).toMatch(UUID);
    const unsafe = await call("/health", { headers: { "X-Request-Id": "<script>" } });
    expect(unsafe.headers.get("X-Request-Id")).toMatch(UUID);
  });

  it("is on error responses, and their body carries the platform's own id, never the caller's", async () => {
    const res = await call("/missing", { headers: { "X-Request-Id": "err-7" } });
    expect(res.status).toBe(404);
    expect(res.headers.get("X-Request-Id")).toBe("err-7");
    expect((await readProblem(res)).request_id).toMatch(UUID);
    const own = await call("/missing");
    expect((await readProblem(own)).request_id).toBe(own.headers.get("X-Request-Id"));
  });

  it("is on a 401", async () => {
    const res = await call("/v1/tenant", { headers: { "X-Request-Id": "auth-1" } });
    expect(res.status).toBe(401);
    expect(res.headers.get("X-Request-Id")).toBe("auth-1");
  });

  it("differs between requests", async () => {
    const [a, b] = await Promise.all([call("/health"), call("/health")]);
    expect(a.headers.get("X-Request-Id")).not.toBe(b.headers.get("X-Request-Id"));
  });
});
