import { env } from "cloudflare:test";
import { createRoute, z } from "@hono/zod-openapi";
import { beforeEach, describe, expect, it } from "vitest";
import { tenantIndexStub } from "../../src/objects";
import { createApp } from "../../src/api/app";
import { ApiError, AUTHENTICATED_ERRORS, PROBLEM_TYPE_BASE, errorResponses } from "../../src/api/errors";
import { idempotencyScope, idempotent, IdempotencyHeadersSchema } from "../../src/api/middleware/idempotency";
import { sha256Hex } from "../../src/shared/hex";
import { jsonBody, jsonContent } from "../../src/api/schemas";
import { bearerAuth } from "../../src/api/security";
import { BASE_URL, readProblem } from "../support/api";
import { bearer, freshTenant } from "../support/tokens";

/** A stand-in for a "create" route: counts how often its handler really runs. */
let runs = 0;
const ThingSchema = z.object({ name: z.string(), fail: z.enum(["conflict", "validation", "crash"]).optional() });
const app = createApp({
  routes: (a) =>
    a.openapi(
      createRoute({
        method: "post",
        path: "/v1/test/things",
        operationId: "createThing",
        summary: "test",
        tags: ["System"],
        security: bearerAuth(),
        middleware: [idempotent()] as const,
        request: { headers: IdempotencyHeadersSchema, body: jsonBody(ThingSchema, { name: "a thing" }) },
        responses: {
          201: jsonContent(z.object({ run: z.number(), name: z.string() }), "made"),
          ...errorResponses(...AUTHENTICATED_ERRORS, 409),
        },
      }),
      (c) => {
        runs += 1;
        const body = c.req.valid("json");
        if (body.fail === "conflict") throw new ApiError("conflict", "busy");
        if (body.fail === "crash") throw new Error("a bug");
        c.header("Location", `/v1/test/things/${runs}`);
        return c.json({ run: runs, name: body.name }, 201);
      },
    ),
});

async function post(headers: Record<string, string>, body: unknown): Promise<Response> {
  return app.request(
    `${BASE_URL}/v1/test/things`,
    { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) },
    env,
  );
}

let tenantId: string;
let auth: Record<string, string>;
beforeEach(async () => {
  runs = 0;
  tenantId = freshTenant();
  auth = await bearer({ tenantId, scopes: ["sessions:write"] });
});

describe("Idempotency-Key", () => {
  it("replays the first response for the same key and body, without running again", async () => {
    const first = await post({ ...auth, "Idempotency-Key": "k1" }, { name: "a" });
    expect(first.status).toBe(201);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    const firstBody = await first.json();

    const again = await post({ ...auth, "Idempotency-Key": "k1" }, { name: "a" });
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.headers.get("Location")).toBe(first.headers.get("Location"));
    expect(again.headers.get("X-Request-Id")).toBeTruthy();
    expect(await again.json()).toEqual(firstBody);
    expect(runs).toBe(1);
  });

  it("answers the same key with a different body with 422", async () => {
    await post({ ...auth, "Idempotency-Key": "k2" }, { name: "a" });
    const res = await post({ ...auth, "Idempotency-Key": "k2" }, { name: "b" });
    expect(res.status).toBe(422);
    expect(await readProblem(res)).toMatchObject({ type: `${PROBLEM_TYPE_BASE}idempotency_conflict` });
    expect(runs).toBe(1);
  });

  it("answers 409 while the first request with the key is still running", async () => {
    const raw = JSON.stringify({ name: "a" });
    const scope = await idempotencyScope("user-1", "POST", "/v1/test/things");
    const bodyHash = await sha256Hex(raw);
    await tenantIndexStub(env, tenantId).beginIdempotent(tenantId, { scope, key: "k3", bodyHash, now: Date.now() });

    const res = await post({ ...auth, "Idempotency-Key": "k3" }, { name: "a" });
    expect(res.status).toBe(409);
    expect(await readProblem(res)).toMatchObject({ type: `${PROBLEM_TYPE_BASE}idempotency_in_progress` });
    expect(runs).toBe(0);
  });

  it("runs every request that has no key", async () => {
    await post(auth, { name: "a" });
    await post(auth, { name: "a" });
    expect(runs).toBe(2);
  });

  it("keeps keys of different callers apart", async () => {
    await post({ ...auth, "Idempotency-Key": "shared" }, { name: "a" });
    const other = await bearer({ tenantId, subject: "user-2", scopes: ["sessions:write"] });
    const res = await post({ ...other, "Idempotency-Key": "shared" }, { name: "a" });
    expect(res.headers.get("Idempotent-Replayed")).toBeNull();
    expect(runs).toBe(2);
  });

  it("replays a refusal that the same body will always get", async () => {
    const first = await post({ ...auth, "Idempotency-Key": "k4" }, { name: 5 });
    expect(first.status).toBe(400);
    const again = await post({ ...auth, "Idempotency-Key": "k4" }, { name: 5 });
    expect(again.status).toBe(400);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.headers.get("Content-Type")).toBe("application/problem+json");
  });

  it.each([
    ["a 409 conflict", "conflict", 409],
    ["a 500", "crash", 500],
  ] as const)("does not keep %s: a retry with the same key runs again at once", async (_name, fail, status) => {
    const key = `k5-${fail}`;
    const first = await post({ ...auth, "Idempotency-Key": key }, { name: "a", fail });
    expect(first.status).toBe(status);
    const again = await post({ ...auth, "Idempotency-Key": key }, { name: "a", fail });
    expect(again.status).toBe(status);
    expect(again.headers.get("Idempotent-Replayed")).toBeNull();
    expect(runs).toBe(2);
  });

  it("refuses a malformed key with 400", async () => {
    const res = await post({ ...auth, "Idempotency-Key": "x".repeat(256) }, { name: "a" });
    expect(res.status).toBe(400);
    expect((await readProblem(res)).errors?.[0]?.path).toBe("header.idempotency-key");
    expect(runs).toBe(0);
  });
});

describe("idempotencyScope", () => {
  it("separates subjects, methods and paths, in a bounded size", async () => {
    const scopes = new Set(
      await Promise.all([
        idempotencyScope("a", "POST", "/v1/sessions"),
        idempotencyScope("b", "POST", "/v1/sessions"),
        idempotencyScope("a", "POST", "/v1/sessions/ses_1/messages"),
        idempotencyScope("a", "PUT", "/v1/sessions"),
      ]),
    );
    expect(scopes.size).toBe(4);
    expect(await idempotencyScope("a", "post", "/x")).toBe(await idempotencyScope("a", "POST", "/x"));
    expect(await idempotencyScope("a", "POST", `/v1/sessions/${"x".repeat(5000)}`)).toHaveLength(64);
  });
});
