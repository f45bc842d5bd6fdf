/**
 * A body on a method that takes none is a 400 problem on every path of the served document,
 * before authentication, never a 500.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/api/app";
import { PROBLEM_TYPE_BASE } from "../../src/api/errors";
import { hasBody, METHODS_WITHOUT_BODY } from "../../src/api/middleware/body-limit";
import { BASE_URL, call, readProblem } from "../support/api";
import { documentPaths } from "../support/document-operations";

/**
 * workerd will not build a GET or HEAD request with a body, yet one arrives that way over HTTP
 * (the end-to-end suite sends it on a socket). This stands in for it inside the runtime: a real
 * request with a body whose method reads as `method`.
 */
class RequestWithBodyAs extends Request {
  readonly #method: string;
  constructor(url: string, method: string, headers: Record<string, string>) {
    super(url, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: '{"a":1}' });
    this.#method = method;
  }
  override get method(): string {
    return this.#method;
  }
}

const credentials = { Authorization: "Bearer ak_not.a.key" };

describe("a body on a method that takes none", () => {
  it("answers GET and HEAD with a body with 400 on every path", async () => {
    const paths = await documentPaths();
    expect(paths.length).toBeGreaterThan(20);
    const app = createApp();
    for (const path of paths) {
      for (const method of ["GET", "HEAD"]) {
        const res = await app.request(new RequestWithBodyAs(BASE_URL + path, method, credentials), undefined, env);
        expect(res.status, `${method} ${path}`).toBe(400);
        if (method === "GET") {
          expect(await readProblem(res), `${method} ${path}`).toMatchObject({ type: `${PROBLEM_TYPE_BASE}bad_request`, status: 400 });
        }
      }
    }
  });

  it("answers DELETE and OPTIONS with a body with 400 on every path, before authentication", async () => {
    for (const path of await documentPaths()) {
      for (const method of ["DELETE", "OPTIONS"]) {
        const res = await call(path, { method, headers: { ...credentials, "Content-Type": "application/json" }, body: "{}" });
        expect(res.status, `${method} ${path}`).toBe(400);
        const problem = await readProblem(res);
        expect(problem.type, `${method} ${path}`).toBe(`${PROBLEM_TYPE_BASE}bad_request`);
        expect(problem.detail).toBe(`A ${method} request takes no body.`);
      }
    }
  });

  it("answers a GET through the Worker's own fetch that declares a body with 400, not 500", async () => {
    const res = await call("/v1/sessions", { headers: { ...credentials, "Content-Length": "7" } });
    expect(res.status).toBe(400);
    expect((await readProblem(res)).detail).toBe("A GET request takes no body.");
  });

  it("answers a request that declares a chunked body with 400 on every path, though no stream arrives with it", async () => {
    const app = createApp();
    for (const path of await documentPaths()) {
      for (const method of ["GET", "HEAD", "DELETE", "OPTIONS"]) {
        const request = new Request(BASE_URL + path, { method, headers: { ...credentials, "Transfer-Encoding": "chunked" } });
        expect(request.body).toBeNull();
        const res = await app.request(request, undefined, env);
        expect(res.status, `${method} ${path}`).toBe(400);
        if (method !== "HEAD") expect((await readProblem(res)).detail).toBe(`A ${method} request takes no body.`);
      }
    }
  });

  it("still serves a bodiless request with a declared Content-Length of 0", async () => {
    const res = await call("/health", { headers: { "Content-Length": "0" } });
    expect(res.status).toBe(200);
  });
});

describe("hasBody", () => {
  const stream = new ReadableStream();
  it.each([
    ["no stream", null, undefined, false],
    ["a stream with no length", stream, undefined, true],
    ["a stream with a length", stream, "3", true],
    ["a declared empty body", stream, "0", false],
    ["a chunked body without a stream", null, undefined, true, "chunked"],
    ["a declared length without a stream", null, "7", true],
    ["a chunked body with a length of 0", stream, "0", true, "gzip, chunked"],
  ])("%s", (_name, body, length, expected, transferEncoding?: string) => {
    expect(hasBody(body, length, transferEncoding)).toBe(expected);
  });

  it("lists the methods that take no body", () => {
    expect([...METHODS_WITHOUT_BODY].sort()).toEqual(["DELETE", "GET", "HEAD", "OPTIONS", "TRACE"]);
  });
});
