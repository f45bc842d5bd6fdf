import { type Schema, Validator } from "@cfworker/json-schema";
import { describe, expect, inject, it } from "vitest";
import { HTTP_FETCH_DEFINITION, runHttpFetch } from "../../src/sessions/object/tools/http-fetch";
import { isTextContentType, safeFetch, type SafeFetchOptions } from "../../src/egress/safe-fetch";
import { mockHook, uniqueKey } from "../support/mock-client";

interface Call {
  url: string;
  method: string;
  body: string | null;
  headers: Headers;
  redirect: string | undefined;
}

type Route = (call: Call, signal: AbortSignal) => Response | Promise<Response>;

/** A fetch that answers from a table of routes by URL and records every request it gets. */
function fakeFetch(routes: Record<string, Route>) {
  const calls: Call[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const call: Call = {
      url: request.url,
      method: request.method,
      body: init?.body == null ? null : String(init.body),
      headers: new Headers(init?.headers),
      redirect: init?.redirect,
    };
    calls.push(call);
    const signal = init?.signal ?? new AbortController().signal;
    if (signal.aborted) throw signal.reason;
    const route = routes[request.url];
    if (!route) throw new TypeError(`no route for ${request.url}`);
    return route(call, signal);
  };
  return { fetchImpl, calls };
}

/** A body that yields `chunk` forever (or `limit` times) and records pulls and cancellation. */
function endlessBody(chunk: Uint8Array, limit = Infinity) {
  const state = { pulls: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      state.pulls++;
      if (state.pulls > limit) controller.close();
      else controller.enqueue(chunk.slice());
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

/** A body that sends one chunk and then never another, as a stalled server would. */
function stalledBody() {
  const state = { cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("partial"));
    },
    pull() {
      return new Promise<void>(() => {});
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

const text = (body: string, status = 200) => new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
const redirect = (location: string, status = 302) => new Response(null, { status, headers: { location } });

function options(fetchImpl: typeof fetch, overrides: Partial<SafeFetchOptions> = {}): SafeFetchOptions {
  return { allowPrivate: false, timeoutMs: 5_000, maxBytes: 1024, maxRedirects: 5, textOnly: true, fetchImpl, ...overrides };
}

describe("safeFetch responses", () => {
  it("returns status, content type and text body", async () => {
    const { fetchImpl, calls } = fakeFetch({ "https://example.com/a": () => text("hello", 201) });
    const result = await safeFetch("https://example.com/a", { method: "GET" }, options(fetchImpl));
    expect(result).toEqual({
      ok: true,
      status: 201,
      contentType: "text/plain; charset=utf-8",
      body: "hello",
      truncated: false,
      finalUrl: "https://example.com/a",
      credentialSent: false,
    });
    expect(calls[0]?.redirect).toBe("manual");
  });

  it("refuses a private URL without sending anything", async () => {
    const { fetchImpl, calls } = fakeFetch({});
    const result = await safeFetch("http://127.0.0.1/", { method: "GET" }, options(fetchImpl));
    expect(result).toEqual({
      ok: false,
      reason: "refused",
      refusal: "loopback",
      detail: "the address 127.0.0.1 is a loopback address",
    });
    expect(calls).toHaveLength(0);
  });

  it("reports a failed connection as a network error", async () => {
    const { fetchImpl } = fakeFetch({ "https://example.com/": () => Promise.reject(new TypeError("connection reset")) });
    const result = await safeFetch("https://example.com/", { method: "GET" }, options(fetchImpl));
    expect(result).toMatchObject({ ok: false, reason: "network_error" });
  });

  it("refuses a Host header that would retarget the request", async () => {
    const { fetchImpl, calls } = fakeFetch({ "https://example.com/": () => text("x") });
    const result = await safeFetch("https://example.com/", { method: "GET", headers: { Host: "internal" } }, options(fetchImpl));
    expect(result).toMatchObject({ ok: false, reason: "invalid_request" });
    expect(calls).toHaveLength(0);
  });
});

describe("safeFetch redirects", () => {
  it("follows a relative redirect and reports the final URL", async () => {
    const { fetchImpl, calls } = fakeFetch({
      "https://example.com/start": () => redirect("/next", 301),
      "https://example.com/next": () => text("arrived"),
    });
    const result = await safeFetch("https://example.com/start", { method: "GET" }, options(fetchImpl));
    expect(result).toMatchObject({ ok: true, body: "arrived", finalUrl: "https://example.com/next" });
    expect(calls.map((call) => call.url)).toEqual(["https://example.com/start", "https://example.com/next"]);
  });

  it("holds every hop to allowedSchemes: an https-only fetch never follows a redirect to http", async () => {
    const { fetchImpl, calls } = fakeFetch({
      "https://example.com/a": () => redirect("http://other.example.net/a"),
      "http://other.example.net/a": () => text("in clear"),
    });
    const result = await safeFetch("https://example.com/a", { method: "GET" }, options(fetchImpl, { allowedSchemes: ["https"] }));
    expect(result).toMatchObject({
      ok: false,
      reason: "refused",
      refusal: "scheme_not_allowed",
      detail: 'the scheme "http" is not allowed; use https',
    });
    expect(calls.map((call) => call.url)).toEqual(["https://example.com/a"]);
  });

  it("refuses a redirect from a public URL to a metadata address and never requests it", async () => {
    const { fetchImpl, calls } = fakeFetch({
      "https://example.com/": () => redirect("http://169.254.169.254/latest/meta-data/"),
    });
    const result = await safeFetch("https://example.com/", { method: "GET" }, options(fetchImpl));
    expect(result).toMatchObject({ ok: false, reason: "refused", refusal: "metadata" });
    expect(calls).toHaveLength(1);
  });

  it("refuses a redirect to loopback written in hex", async () => {
    const { fetchImpl, calls } = fakeFetch({ "https://example.com/": () => redirect("http://0x7f.1:8080/admin", 307) });
    const result = await safeFetch("https://example.com/", { method: "GET" }, options(fetchImpl));
    expect(result).toMatchObject({ ok: false, reason: "refused", refusal: "loopback" });
    expect(calls).toHaveLength(1);
  });

  it("follows exactly maxRedirects hops and refuses one more", async () => {
    const routes: Record<string, Route> = { "https://example.com/3": () => text("end") };
    for (let index = 0; index < 3; index++) routes[`https://example.com/${index}`] = () => redirect(`/${index + 1}`);
    const { fetchImpl } = fakeFetch(routes);
    const allowed = await safeFetch("https://example.com/0", { method: "GET" }, options(fetchImpl, { maxRedirects: 3 }));
    expect(allowed).toMatchObject({ ok: true, body: "end" });
    const tooMany = await safeFetch("https://example.com/0", { method: "GET" }, options(fetchImpl, { maxRedirects: 2 }));
    expect(tooMany).toMatchObject({ ok: false, reason: "too_many_redirects" });
  });

  it("stops a redirect loop", async () => {
    const { fetchImpl, calls } = fakeFetch({ "https://example.com/loop": () => redirect("/loop", 308) });
    const result = await safeFetch("https://example.com/loop", { method: "GET" }, options(fetchImpl, { maxRedirects: 4 }));
    expect(result).toMatchObject({ ok: false, reason: "too_many_redirects" });
    expect(calls).toHaveLength(5);
  });

  it.each([303, 302, 301])("turns a POST answered with %i into a GET without body", async (status) => {
    const { fetchImpl, calls } = fakeFetch({
      "https://example.com/form": () => redirect("/done", status),
      "https://example.com/done": () => text("thanks"),
    });
    const init = { method: "POST" as const, body: "a=1", headers: { "content-type": "application/x-www-form-urlencoded" } };
    const result = await safeFetch("https://example.com/form", init, options(fetchImpl));
    expect(result).toMatchObject({ ok: true, body: "thanks" });
    expect(calls[0]).toMatchObject({ method: "POST", body: "a=1" });
    expect(calls[1]).toMatchObject({ method: "GET", body: null });
    expect(calls[1]?.headers.has("content-type")).toBe(false);
  });

  it("keeps method and body across a 307", async () => {
    const { fetchImpl, calls } = fakeFetch({
      "https://example.com/form": () => redirect("/moved", 307),
      "https://example.com/moved": () => text("ok"),
    });
    await safeFetch("https://example.com/form", { method: "POST", body: "{}" }, options(fetchImpl));
    expect(calls[1]).toMatchObject({ method: "POST", body: "{}" });
  });

  it("drops Authorization when a redirect leaves the origin", async () => {
    const { fetchImpl, calls } = fakeFetch({
      "https://example.com/a": () => redirect("/b"),
      "https://example.com/b": () => redirect("https://other.example/c"),
      "https://other.example/c": () => text("ok"),
    });
    await safeFetch("https://example.com/a", { method: "GET", headers: { authorization: "Bearer t" } }, options(fetchImpl));
    expect(calls.map((call) => call.headers.get("authorization"))).toEqual(["Bearer t", "Bearer t", null]);
  });

  const sentHeaders = {
    authorization: "Bearer t",
    cookie: "sid=1",
    "x-api-key": "k-123",
    "private-token": "p-456",
    "x-custom": "c",
    accept: "application/json",
    "accept-language": "fr",
    "user-agent": "agent/1",
    "cache-control": "no-cache",
  };

  it("keeps only harmless headers once a redirect leaves the origin, and for the rest of the chain", async () => {
    const { fetchImpl, calls } = fakeFetch({
      "https://example.com/a": () => redirect("/b"),
      "https://example.com/b": () => redirect("https://other.example/c", 301),
      "https://other.example/c": () => redirect("https://example.com/d", 308),
      "https://example.com/d": () => text("ok"),
    });
    await safeFetch("https://example.com/a", { method: "GET", headers: sentHeaders }, options(fetchImpl));
    const names = calls.map((call) => [...call.headers.keys()].sort());
    expect(names[1]).toEqual(Object.keys(sentHeaders).sort()); // same origin: everything
    const harmless = ["accept", "accept-language", "cache-control", "user-agent"];
    expect(names[2]).toEqual(harmless);
    expect(names[3]).toEqual(harmless); // back on the first origin: still dropped
    expect(calls[2]!.headers.get("accept")).toBe("application/json");
  });

  it.each([307, 308])("does not resend a POST body to another origin on a %i: the redirect goes back to the caller", async (status) => {
    const { fetchImpl, calls } = fakeFetch({
      "https://example.com/form": () => redirect("https://other.example/steal", status),
      "https://other.example/steal": () => text("got it"),
    });
    const result = await safeFetch(
      "https://example.com/form",
      { method: "POST", body: "secret=1", headers: sentHeaders },
      options(fetchImpl),
    );
    expect(calls.map((call) => call.url)).toEqual(["https://example.com/form"]);
    expect(result).toMatchObject({
      ok: false,
      reason: "redirect_not_followed",
      detail: expect.stringContaining("https://other.example/steal"),
    });
  });

  it("follows a 303 from a POST to another origin as a GET without body or credentials", async () => {
    const { fetchImpl, calls } = fakeFetch({
      "https://example.com/form": () => redirect("https://other.example/done", 303),
      "https://other.example/done": () => text("thanks"),
    });
    const result = await safeFetch(
      "https://example.com/form",
      { method: "POST", body: "a=1", headers: { ...sentHeaders, "content-type": "text/plain" } },
      options(fetchImpl),
    );
    expect(result).toMatchObject({ ok: true, body: "thanks" });
    expect(calls[1]).toMatchObject({ method: "GET", body: null });
    expect([...calls[1]!.headers.keys()].sort()).toEqual(["accept", "accept-language", "cache-control", "user-agent"]);
  });

  it("returns a 3xx without Location as the answer", async () => {
    const { fetchImpl } = fakeFetch({ "https://example.com/": () => new Response("not modified", { status: 300 }) });
    const result = await safeFetch("https://example.com/", { method: "GET" }, options(fetchImpl));
    expect(result).toMatchObject({ ok: true, status: 300 });
  });
});

describe("safeFetch body limits", () => {
  it("cuts the body at maxBytes and cancels the rest of the stream", async () => {
    const body = endlessBody(new Uint8Array(1000).fill(0x61));
    const { fetchImpl } = fakeFetch({ "https://example.com/big": () => new Response(body.stream) });
    const result = await safeFetch("https://example.com/big", { method: "GET" }, options(fetchImpl, { maxBytes: 2500 }));
    expect(result).toMatchObject({ ok: true, truncated: true });
    expect(result.ok && result.body).toBe("a".repeat(2500));
    expect(body.state.cancelled).toBe(true);
    expect(body.state.pulls).toBeLessThan(10);
  });

  it("does not mark a body of exactly maxBytes as truncated", async () => {
    const body = endlessBody(new Uint8Array(500).fill(0x62), 2);
    const { fetchImpl } = fakeFetch({ "https://example.com/": () => new Response(body.stream) });
    const result = await safeFetch("https://example.com/", { method: "GET" }, options(fetchImpl, { maxBytes: 1000 }));
    expect(result).toMatchObject({ ok: true, truncated: false });
    expect(result.ok && result.body.length).toBe(1000);
  });

  it("does not split a multi-byte character at the cut", async () => {
    const { fetchImpl } = fakeFetch({ "https://example.com/": () => text("é".repeat(100)) });
    const result = await safeFetch("https://example.com/", { method: "GET" }, options(fetchImpl, { maxBytes: 7 }));
    expect(result).toMatchObject({ ok: true, truncated: true, body: "ééé" });
  });

  it("refuses a binary response and cancels its body", async () => {
    const body = endlessBody(new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
    const { fetchImpl } = fakeFetch({
      "https://example.com/img": () => new Response(body.stream, { headers: { "content-type": "image/png" } }),
    });
    const result = await safeFetch("https://example.com/img", { method: "GET" }, options(fetchImpl));
    expect(result).toMatchObject({ ok: false, reason: "not_text" });
    expect(body.state.cancelled).toBe(true);
  });

  it("returns a binary response when textOnly is off", async () => {
    const { fetchImpl } = fakeFetch({
      "https://example.com/bin": () => new Response("raw", { headers: { "content-type": "application/octet-stream" } }),
    });
    const result = await safeFetch("https://example.com/bin", { method: "GET" }, options(fetchImpl, { textOnly: false }));
    expect(result).toMatchObject({ ok: true, body: "raw" });
  });

  it.each([
    ["text/html; charset=utf-8", true],
    ["application/json", true],
    ["Application/JSON", true],
    ["application/xml", true],
    ["application/problem+json", true],
    ["application/atom+xml", true],
    [null, true],
    ["image/png", false],
    ["application/octet-stream", false],
    ["application/pdf", false],
    ["application/jsonp", false],
  ] as const)("treats content type %s as text: %s", (contentType, expected) => {
    expect(isTextContentType(contentType)).toBe(expected);
  });
});

describe("safeFetch deadlines and cancellation", () => {
  it("gives up on a body that never ends and cancels it", async () => {
    const body = stalledBody();
    const { fetchImpl } = fakeFetch({ "https://example.com/slow": () => new Response(body.stream) });
    const started = Date.now();
    const result = await safeFetch("https://example.com/slow", { method: "GET" }, options(fetchImpl, { timeoutMs: 50 }));
    expect(result).toMatchObject({ ok: false, reason: "timeout" });
    expect(body.state.cancelled).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("gives up on a server that never answers", async () => {
    const { fetchImpl } = fakeFetch({
      "https://example.com/hang": (_call, signal) =>
        new Promise<Response>((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
    });
    const result = await safeFetch("https://example.com/hang", { method: "GET" }, options(fetchImpl, { timeoutMs: 50 }));
    expect(result).toMatchObject({ ok: false, reason: "timeout" });
  });

  it("does nothing when the caller has already cancelled", async () => {
    const { fetchImpl, calls } = fakeFetch({ "https://example.com/": () => text("x") });
    const result = await safeFetch("https://example.com/", { method: "GET", signal: AbortSignal.abort() }, options(fetchImpl));
    expect(result).toMatchObject({ ok: false, reason: "aborted" });
    expect(calls).toHaveLength(0);
  });

  it("stops reading when the caller cancels mid-body", async () => {
    const body = stalledBody();
    const controller = new AbortController();
    const { fetchImpl } = fakeFetch({
      "https://example.com/slow": () => {
        queueMicrotask(() => controller.abort());
        return new Response(body.stream);
      },
    });
    const init = { method: "GET" as const, signal: controller.signal };
    const result = await safeFetch("https://example.com/slow", init, options(fetchImpl, { timeoutMs: 5_000 }));
    expect(result).toMatchObject({ ok: false, reason: "aborted" });
    expect(body.state.cancelled).toBe(true);
  });
});

// These reach the real loopback mock server (test/support/node/mock-server.ts) through the
// runtime's own fetch, so they need allowPrivate; everything else above uses fakeFetch.
describe("safeFetch against the real loopback mock server", () => {
  const mockUrl = inject("mockUrl");
  const lenient = (overrides: Partial<SafeFetchOptions> = {}) => options(fetch, { allowPrivate: true, ...overrides });

  it("fetches a page over real HTTP when private targets are allowed", async () => {
    const result = await safeFetch(`${mockUrl}/page/hello`, { method: "GET" }, lenient());
    expect(result).toEqual({
      ok: true,
      status: 200,
      contentType: "text/plain; charset=utf-8",
      body: "page hello",
      truncated: false,
      finalUrl: `${mockUrl}/page/hello`,
      credentialSent: false,
    });
  });

  it("refuses the same server when private targets are forbidden", async () => {
    const result = await safeFetch(`${mockUrl}/page/hello`, { method: "GET" }, options(fetch));
    expect(result).toMatchObject({ ok: false, reason: "refused", refusal: "loopback" });
  });

  it("follows a real redirect by hand", async () => {
    const target = `${mockUrl}/page/after`;
    const url = `${mockUrl}/redirect?to=${encodeURIComponent(target)}&status=302`;
    const result = await safeFetch(url, { method: "GET" }, lenient());
    expect(result).toMatchObject({ ok: true, body: "page after", finalUrl: target });
  });

  /** The mock server under its other name: the same server, another origin. */
  const otherOrigin = () => mockUrl.replace("127.0.0.1", "localhost");

  it("sends only harmless headers to a real server on another origin", async () => {
    const hook = mockHook(uniqueKey("redirect-target"));
    const target = hook.url.replace(mockUrl, otherOrigin());
    const url = `${mockUrl}/redirect?to=${encodeURIComponent(target)}&status=302`;
    const headers = { "x-api-key": "k-123", authorization: "Bearer t", accept: "text/plain", "user-agent": "agent/1" };
    await safeFetch(url, { method: "GET", headers }, lenient());
    const [received] = await hook.requests();
    expect(received!.headers).toMatchObject({ accept: "text/plain", "user-agent": "agent/1" });
    expect(received!.headers).not.toHaveProperty("x-api-key");
    expect(received!.headers).not.toHaveProperty("authorization");
  });

  it("never resends a POST body to a real server on another origin", async () => {
    const hook = mockHook(uniqueKey("redirect-target"));
    const url = `${mockUrl}/redirect?to=${encodeURIComponent(hook.url.replace(mockUrl, otherOrigin()))}&status=307`;
    const result = await safeFetch(url, { method: "POST", body: "secret=1" }, lenient());
    expect(result).toMatchObject({ ok: false, reason: "redirect_not_followed" });
    expect(await hook.requests()).toEqual([]);
  });

  it("cuts a large real body at the cap", async () => {
    const result = await safeFetch(`${mockUrl}/big?bytes=${4 * 1024 * 1024}`, { method: "GET" }, lenient({ maxBytes: 10_000 }));
    expect(result).toMatchObject({ ok: true, truncated: true });
    expect(result.ok && result.body).toBe("x".repeat(10_000));
  });

  it("refuses a real binary response", async () => {
    const result = await safeFetch(`${mockUrl}/binary`, { method: "GET" }, lenient());
    expect(result).toMatchObject({ ok: false, reason: "not_text" });
  });
});

// The http_fetch tool is a thin layer on safeFetch; its formatting is tested here beside it.
describe("http_fetch tool", () => {
  const ctx = (fetchImpl: typeof fetch, maxOutputChars = 8000) => ({
    allowPrivate: false,
    maxOutputChars,
    signal: new AbortController().signal,
    fetchImpl,
  });

  it("declares an input schema that accepts its inputs and rejects others", () => {
    const validator = new Validator(HTTP_FETCH_DEFINITION.input_schema as unknown as Schema);
    expect(HTTP_FETCH_DEFINITION.name).toBe("http_fetch");
    expect(validator.validate({ url: "https://example.com" }).valid).toBe(true);
    expect(validator.validate({ url: "https://e.com", method: "POST", body: "x", headers: { a: "b" } }).valid).toBe(true);
    expect(validator.validate({}).valid).toBe(false);
    expect(validator.validate({ url: "https://e.com", method: "PUT" }).valid).toBe(false);
    expect(validator.validate({ url: "https://e.com", extra: 1 }).valid).toBe(false);
    expect(validator.validate({ url: "https://e.com", headers: { a: 1 } }).valid).toBe(false);
  });

  it("shows status, content type, final URL and body", async () => {
    const { fetchImpl } = fakeFetch({
      "https://example.com/a": () => redirect("/b"),
      "https://example.com/b": () => text("body text"),
    });
    const result = await runHttpFetch({ url: "https://example.com/a" }, ctx(fetchImpl));
    expect(result).toEqual({
      output: "HTTP 200\nContent-Type: text/plain; charset=utf-8\nURL: https://example.com/b\n\nbody text",
      isError: false,
    });
  });

  it("marks an error status as an error but keeps the body", async () => {
    const { fetchImpl } = fakeFetch({ "https://example.com/missing": () => text("no such page", 404) });
    const result = await runHttpFetch({ url: "https://example.com/missing" }, ctx(fetchImpl));
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^HTTP 404\n[\s\S]*no such page$/);
  });

  it("explains a refusal in words", async () => {
    const { fetchImpl, calls } = fakeFetch({});
    const result = await runHttpFetch({ url: "http://127.0.0.1/admin" }, ctx(fetchImpl));
    expect(result).toEqual({ output: "refused: the address 127.0.0.1 is a loopback address", isError: true });
    expect(calls).toHaveLength(0);
  });

  it("explains a non-text response", async () => {
    const { fetchImpl } = fakeFetch({
      "https://example.com/x.png": () => new Response("png", { headers: { "content-type": "image/png" } }),
    });
    const result = await runHttpFetch({ url: "https://example.com/x.png" }, ctx(fetchImpl));
    expect(result.isError).toBe(true);
    expect(result.output).toContain("image/png");
  });

  it.each([
    ["a string", "https://example.com"],
    ["a body with GET", { url: "https://example.com", body: "x" }],
    ["an unknown property", { url: "https://example.com", follow: true }],
    ["a non-string header", { url: "https://example.com", headers: { a: 1 } }],
  ])("rejects %s as input without fetching", async (_label, input) => {
    const { fetchImpl, calls } = fakeFetch({});
    const result = await runHttpFetch(input, ctx(fetchImpl));
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^invalid input: /);
    expect(calls).toHaveLength(0);
  });

  it("cuts the output to the tenant's limit and says so", async () => {
    const { fetchImpl } = fakeFetch({ "https://example.com/": () => text("x".repeat(5000)) });
    const result = await runHttpFetch({ url: "https://example.com/" }, ctx(fetchImpl, 200));
    expect(result.output).toHaveLength(200);
    expect(result.output).toMatch(/\[output cut at 200 characters\]$/);
  });

  it("sends a POST body", async () => {
    const { fetchImpl, calls } = fakeFetch({ "https://example.com/api": () => text("created", 201) });
    await runHttpFetch({ url: "https://example.com/api", method: "POST", body: '{"a":1}' }, ctx(fetchImpl));
    expect(calls[0]).toMatchObject({ method: "POST", body: '{"a":1}' });
  });
});
