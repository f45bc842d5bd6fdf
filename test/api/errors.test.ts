import { env } from "cloudflare:test";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { createApp } from "../../src/api/app";
import { ApiError, PROBLEM_CODES, PROBLEM_TYPE_BASE } from "../../src/api/errors";
import { BASE_URL, call, readProblem } from "../support/api";
import { bearer, freshTenant } from "../support/tokens";

/** An app with routes that fail in the ways a handler can. */
const failing = createApp({
  routes: (app) => {
    app.get("/boom", () => {
      throw new Error("database password is hunter2");
    });
    app.get("/boom-string", () => {
      throw "a bare string";
    });
    // As Cloudflare marks a Durable Object's infrastructure failures, and an error its own code threw.
    app.get("/object-reset", () => {
      throw Object.assign(new Error("Durable Object reset because its code was updated."), { retryable: true });
    });
    app.get("/object-overloaded", () => {
      throw Object.assign(new Error("Durable Object is overloaded. Too many requests queued."), { overloaded: true });
    });
    app.get("/object-threw", () => {
      throw Object.assign(new Error("a bug in the object"), { retryable: true, remote: true });
    });
    app.get("/limited", () => {
      throw new ApiError("rate_limited", "Slow down.", { retryAfterSeconds: 2.2 });
    });
  },
});

describe("problem responses", () => {
  it("answers an unknown path with a 404 problem", async () => {
    const res = await call("/no/such/path");
    expect(res.status).toBe(404);
    const problem = await readProblem(res);
    expect(problem).toMatchObject({ type: `${PROBLEM_TYPE_BASE}not_found`, title: "Not found", status: 404 });
    expect(problem.request_id).toBe(res.headers.get("X-Request-Id"));
  });

  it("answers a wrong method on a known path with a 405 problem and Allow", async () => {
    const res = await call("/health", { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")?.split(", ").sort()).toEqual(["GET", "HEAD"]);
    expect(await readProblem(res)).toMatchObject({ type: `${PROBLEM_TYPE_BASE}method_not_allowed`, status: 405 });
  });

  it("answers a wrong method on an authenticated path with 405 once the caller is authenticated", async () => {
    const res = await call("/v1/api-keys", {
      method: "PATCH",
      headers: await bearer({ tenantId: freshTenant(), scopes: ["tenant:admin"] }),
    });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")?.split(", ").sort()).toEqual(["GET", "HEAD", "POST"]);
  });

  it("lists every method of a path in Allow", async () => {
    const res = await call("/.well-known/jwks.json", { method: "POST", body: "{}" });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toContain("GET");
  });

  it("answers a versioned path without credentials with 401 before revealing whether it exists", async () => {
    const res = await call("/v1/no-such-thing");
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
  });

  it("never sends HTML or a stack for an error", async () => {
    const res = await call("/nope", { headers: { Accept: "text/html" } });
    const text = await res.text();
    expect(res.headers.get("Content-Type")).toBe("application/problem+json");
    expect(text).not.toMatch(/<html|at .*\(.*:\d+:\d+\)/i);
  });
});

describe("unexpected errors", () => {
  it("answers a thrown Error with a generic 500 that leaks neither message nor stack, and logs it", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await failing.request(`${BASE_URL}/boom`, { headers: { "X-Request-Id": "boom-1" } }, env);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain("hunter2");
    expect(text).not.toMatch(/\bat\b.*:\d+/);
    const problem = JSON.parse(text) as { request_id: string };
    expect(problem).toMatchObject({ type: `${PROBLEM_TYPE_BASE}internal`, status: 500 });
    // Logged with the platform's own id, which the problem carries, and the caller's beside it.
    const lines = logged.mock.calls.map((args) => String(args[0])).join("\n");
    expect(lines).toContain(problem.request_id);
    expect(lines).toMatch(/boom-1.*hunter2|hunter2.*boom-1/);
    logged.mockRestore();
  });

  it("answers a thrown non-Error with a 500 problem rather than crashing the request", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await failing.request(`${BASE_URL}/boom-string`, {}, env);
    expect(res.status).toBe(500);
    expect((await readProblem(res)).type).toBe(`${PROBLEM_TYPE_BASE}internal`);
    logged.mockRestore();
  });

  it("renders Retry-After for a rate limit, rounded up to whole seconds", async () => {
    const res = await failing.request(`${BASE_URL}/limited`, {}, env);
    expect(res.status).toBe(429);
    expect(res.headers.get("Retry-After")).toBe("3");
    expect((await readProblem(res)).detail).toBe("Slow down.");
  });
});

describe("problem documents", () => {
  it("renders exactly the RFC 9457 members plus code and request_id, and errors only when there are some", async () => {
    const plain = await failing.request(`${BASE_URL}/limited`, {}, env);
    expect(Object.keys((await plain.json()) as object).sort()).toEqual(["code", "detail", "request_id", "status", "title", "type"]);
  });

  it("names every problem with a stable code from the closed list, the same name as its type URI", async () => {
    const problem = (await (await failing.request(`${BASE_URL}/limited`, {}, env)).json()) as { code: string; type: string };
    expect(problem.code).toBe("rate_limited");
    expect(problem.type).toBe(`${PROBLEM_TYPE_BASE}${problem.code}`);
    expect(PROBLEM_CODES).toContain(problem.code);
  });
});

describe("a Durable Object's infrastructure failing a call", () => {
  it("is a 503 with Retry-After when the error is marked retryable or overloaded, and a 500 when the object's own code threw", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    onTestFinished(() => logged.mockRestore());
    for (const path of ["/object-reset", "/object-overloaded"]) {
      const res = await failing.request(`${BASE_URL}${path}`, undefined, env);
      expect(res.status, path).toBe(503);
      expect(res.headers.get("Retry-After"), path).toBe("5");
      const text = await res.text();
      expect(JSON.parse(text), path).toMatchObject({ code: "service_unavailable", status: 503 });
      expect(text, path).not.toMatch(/Durable Object/);
    }
    const threw = await failing.request(`${BASE_URL}/object-threw`, undefined, env);
    expect(threw.status).toBe(500);
  });
});
