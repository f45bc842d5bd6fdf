import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub } from "../../src/objects";
import { PROBLEM_TYPE_BASE } from "../../src/api/errors";
import { fieldErrors } from "../../src/api/middleware/validation";
import { createApp } from "../../src/api/app";
import { BASE_URL, call, callJson, readProblem } from "../support/api";
import { bearer, freshTenant } from "../support/tokens";

async function admin(tenantId = freshTenant()): Promise<Record<string, string>> {
  return bearer({ tenantId, scopes: ["tenant:admin"] });
}

describe("malformed and invalid bodies", () => {
  it("answers malformed JSON with a 400 problem, not a 500", async () => {
    const res = await call("/v1/api-keys", {
      method: "POST",
      headers: { ...(await admin()), "Content-Type": "application/json" },
      body: '{"name": "x", ',
    });
    expect(res.status).toBe(400);
    expect(await readProblem(res)).toMatchObject({ type: `${PROBLEM_TYPE_BASE}bad_request`, status: 400 });
  });

  it("lists every invalid field with its location", async () => {
    const res = await callJson("/v1/api-keys", "POST", { name: "", scopes: ["bogus"], expires_at: "tomorrow" }, await admin());
    expect(res.status).toBe(400);
    const problem = await readProblem(res);
    expect(problem.type).toBe(`${PROBLEM_TYPE_BASE}validation_failed`);
    const paths = problem.errors?.map((error) => error.path).sort();
    expect(paths).toEqual(["body.expires_at", "body.name", "body.scopes.0"]);
    for (const error of problem.errors ?? []) expect(error.message).toEqual(expect.any(String));
  });

  it("refuses unknown fields", async () => {
    const res = await callJson("/v1/api-keys", "POST", { name: "k", scopes: ["sessions:read"], admin: true }, await admin());
    expect(res.status).toBe(400);
    expect((await readProblem(res)).errors?.[0]?.path).toBe("body");
  });

  it("validates a route with a required body when the body is missing", async () => {
    const res = await call("/v1/api-keys", { method: "POST", headers: await admin() });
    expect(res.status).toBe(400);
    expect((await readProblem(res)).errors?.map((error) => error.path)).toContain("body.name");
  });

  it("answers a body that is not JSON with 415", async () => {
    const res = await call("/v1/api-keys", {
      method: "POST",
      headers: { ...(await admin()), "Content-Type": "text/plain" },
      body: "name=k",
    });
    expect(res.status).toBe(415);
    expect(await readProblem(res)).toMatchObject({ type: `${PROBLEM_TYPE_BASE}unsupported_media_type` });
  });

  it("locates query and path errors", async () => {
    const headers = await admin();
    const query = await readProblem(await call("/v1/api-keys?limit=0", { headers }));
    expect(query.errors?.map((error) => error.path)).toEqual(["query.limit"]);
    const cursor = await readProblem(await call("/v1/api-keys?cursor=not-ours", { headers }));
    expect(cursor.errors?.map((error) => error.path)).toEqual(["query.cursor"]);
    const path = await readProblem(await call("/v1/api-keys/not-a-key", { method: "DELETE", headers }));
    expect(path.errors?.map((error) => error.path)).toEqual(["path.key_id"]);
  });
});

describe("body size", () => {
  it("answers a declared length over the tenant's max_request_bytes with 413", async () => {
    const tenantId = freshTenant();
    await tenantIndexStub(env, tenantId).setLimitOverrides(tenantId, { max_request_bytes: 1024 });
    const res = await callJson(
      "/v1/api-keys",
      "POST",
      { name: "k", scopes: ["sessions:read"], pad: "x".repeat(2000) },
      await admin(tenantId),
    );
    expect(res.status).toBe(413);
    expect(await readProblem(res)).toMatchObject({ type: `${PROBLEM_TYPE_BASE}payload_too_large`, status: 413 });
  });

  it("cuts off a streamed body without a length once it passes the limit", async () => {
    const tenantId = freshTenant();
    await tenantIndexStub(env, tenantId).setLimitOverrides(tenantId, { max_request_bytes: 1024 });
    const chunk = new TextEncoder().encode(`{"name":"k","pad":"${"x".repeat(600)}`);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 4; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    // Built in-process so the body reaches the app as a stream with no Content-Length at all.
    const request = new Request(`${BASE_URL}/v1/api-keys`, {
      method: "POST",
      headers: { ...(await admin(tenantId)), "Content-Type": "application/json" },
      body,
    });
    expect(request.headers.has("Content-Length")).toBe(false);
    const res = await createApp().request(request, undefined, env);
    expect(res.status).toBe(413);
    expect(await readProblem(res)).toMatchObject({ type: `${PROBLEM_TYPE_BASE}payload_too_large` });
  });

  it("applies a tenant's raised limit rather than the platform default", async () => {
    const tenantId = freshTenant();
    await tenantIndexStub(env, tenantId).setLimitOverrides(tenantId, { max_request_bytes: 3 * 1024 * 1024 });
    const big = { name: "k", scopes: ["sessions:read"], pad: "x".repeat(1536 * 1024) };
    const res = await callJson("/v1/api-keys", "POST", big, await admin(tenantId));
    // Read and validated (the pad field is refused), not cut off at the 1 MiB default.
    expect(res.status).toBe(400);
    expect((await readProblem(res)).type).toBe(`${PROBLEM_TYPE_BASE}validation_failed`);
  });

  it("uses the platform default for a tenant without overrides", async () => {
    const big = { name: "k", scopes: ["sessions:read"], pad: "x".repeat(1024 * 1024) };
    const res = await callJson("/v1/api-keys", "POST", big, await admin());
    expect(res.status).toBe(413);
  });
});

describe("fieldErrors", () => {
  it("prefixes each zod issue path with where the value came from", () => {
    const issues = [
      { code: "custom" as const, path: ["limits", "max_steps_per_run"], message: "too big", input: 1 },
      { code: "custom" as const, path: [], message: "bad", input: 1 },
    ];
    expect(fieldErrors(issues, "json")).toEqual([
      { path: "body.limits.max_steps_per_run", message: "too big" },
      { path: "body", message: "bad" },
    ]);
    expect(fieldErrors([{ code: "custom", path: ["limit"], message: "m", input: 0 }], "query")[0]?.path).toBe("query.limit");
    expect(fieldErrors([{ code: "custom", path: ["key_id"], message: "m", input: 0 }], "param")[0]?.path).toBe("path.key_id");
  });
});
