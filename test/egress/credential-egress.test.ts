import { describe, expect, it } from "vitest";
import { safeFetch, type SafeFetchOptions } from "../../src/egress/safe-fetch";
import { sendWithCredential, type CredentialAuth } from "../../src/egress/credential-fetch";
import { mcpFetch } from "../../src/sessions/object/tools/mcp/mcp-fetch";
import type { CredentialLookup, CredentialSource, EgressCredential } from "../../src/egress/credentials";

/** A fetch that answers from a table of routes by URL and records the headers of every request. */
function fakeFetch(routes: Record<string, (headers: Headers) => Response>) {
  const calls: { url: string; headers: Headers }[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const headers = new Headers(init?.headers);
    calls.push({ url, headers });
    const route = routes[url];
    if (!route) throw new TypeError(`no route for ${url}`);
    return route(headers);
  };
  return { fetchImpl, calls };
}

const ok = () => new Response("ok", { headers: { "content-type": "text/plain" } });
const redirect = (location: string, status = 302) => new Response(null, { status, headers: { location } });
const options = (fetchImpl: typeof fetch): SafeFetchOptions => ({
  allowPrivate: false,
  timeoutMs: 5_000,
  maxBytes: 1024,
  maxRedirects: 5,
  textOnly: true,
  fetchImpl,
});

const SECRET = "Bearer s3cret-token-value";
function credential(overrides: Partial<EgressCredential> = {}): EgressCredential {
  return {
    name: "github",
    owner: "end_user",
    header: "authorization",
    value: SECRET,
    allowedOrigins: ["https://api.example.com", "https://mirror.example.com"],
    refreshable: false,
    ...overrides,
  };
}

describe("safeFetch with a credential, hop by hop", () => {
  it("adds the header on an allowed origin and reports it sent", async () => {
    const { fetchImpl, calls } = fakeFetch({ "https://api.example.com/x": ok });
    const result = await safeFetch("https://api.example.com/x", { method: "GET", credential: credential() }, options(fetchImpl));
    expect(calls[0]!.headers.get("authorization")).toBe(SECRET);
    expect(result).toMatchObject({ ok: true, credentialSent: true });
  });

  it("sends nothing to an origin the credential does not allow", async () => {
    const { fetchImpl, calls } = fakeFetch({ "https://elsewhere.example/x": ok });
    const result = await safeFetch("https://elsewhere.example/x", { method: "GET", credential: credential() }, options(fetchImpl));
    expect(calls[0]!.headers.get("authorization")).toBeNull();
    expect(result).toMatchObject({ ok: true, credentialSent: false });
  });

  it("keeps it across a same-origin redirect", async () => {
    const { fetchImpl, calls } = fakeFetch({ "https://api.example.com/a": () => redirect("/b"), "https://api.example.com/b": ok });
    await safeFetch("https://api.example.com/a", { method: "GET", credential: credential() }, options(fetchImpl));
    expect(calls.map((call) => call.headers.get("authorization"))).toEqual([SECRET, SECRET]);
  });

  it("drops it on a redirect to another origin, even one it allows, and never adds it back on a hop home", async () => {
    const { fetchImpl, calls } = fakeFetch({
      "https://api.example.com/a": () => redirect("https://mirror.example.com/b"),
      "https://mirror.example.com/b": () => redirect("https://api.example.com/c"),
      "https://api.example.com/c": ok,
    });
    const result = await safeFetch("https://api.example.com/a", { method: "GET", credential: credential() }, options(fetchImpl));
    expect(calls.map((call) => call.headers.get("authorization"))).toEqual([SECRET, null, null]);
    expect(result).toMatchObject({ ok: true, credentialSent: false });
  });

  it("drops it on a redirect to an origin it does not allow", async () => {
    const { fetchImpl, calls } = fakeFetch({
      "https://api.example.com/a": () => redirect("https://evil.example/steal", 307),
      "https://evil.example/steal": ok,
    });
    await safeFetch("https://api.example.com/a", { method: "GET", credential: credential() }, options(fetchImpl));
    expect(calls[1]!.headers.get("authorization")).toBeNull();
  });

  it("replaces a header of the same name the caller set, on every letter case", async () => {
    const { fetchImpl, calls } = fakeFetch({ "https://api.example.com/x": ok });
    await safeFetch(
      "https://api.example.com/x",
      { method: "GET", headers: { Authorization: "Bearer tool-own" }, credential: credential({ header: "Authorization" }) },
      options(fetchImpl),
    );
    expect(calls[0]!.headers.get("authorization")).toBe(SECRET);
  });

  it("refuses a value that cannot be a header without echoing it", async () => {
    const { fetchImpl, calls } = fakeFetch({ "https://api.example.com/x": ok });
    const result = await safeFetch(
      "https://api.example.com/x",
      { method: "GET", credential: credential({ value: "bad\nvalue-secret" }) },
      options(fetchImpl),
    );
    expect(calls).toHaveLength(0);
    expect(result).toMatchObject({ ok: false, reason: "invalid_request" });
    expect(JSON.stringify(result)).not.toContain("value-secret");
  });

  it("never sets a framing header from a credential", async () => {
    const { fetchImpl, calls } = fakeFetch({ "https://api.example.com/x": ok });
    const result = await safeFetch(
      "https://api.example.com/x",
      { method: "GET", credential: credential({ header: "host" }) },
      options(fetchImpl),
    );
    expect(calls).toHaveLength(0);
    expect(result).toMatchObject({ ok: false, reason: "invalid_request" });
  });
});

/** A source over one stored credential, counting refreshes. */
function source(first: CredentialLookup, refreshed: CredentialLookup) {
  const seen = { gets: 0, refreshes: [] as string[] };
  const credentials: CredentialSource = {
    get: async () => {
      seen.gets++;
      return first;
    },
    refresh: async (_name, rejected) => {
      seen.refreshes.push(rejected);
      return refreshed;
    },
  };
  return { credentials, seen };
}

describe("sendWithCredential", () => {
  const NEW = "Bearer renewed-token-value";
  const fresh: CredentialLookup = { ok: true, credential: credential({ value: NEW, refreshable: true }) };

  async function call(auth: CredentialAuth, routes: Record<string, (headers: Headers) => Response>) {
    const { fetchImpl, calls } = fakeFetch(routes);
    const attempt = await sendWithCredential(
      auth,
      (cred) => safeFetch("https://api.example.com/x", { method: "GET", ...(cred ? { credential: cred } : {}) }, options(fetchImpl)),
      (result) => (result.ok ? result : null),
    );
    return { attempt, calls };
  }
  const rejectOld = {
    "https://api.example.com/x": (headers: Headers) => (headers.get("authorization") === NEW ? ok() : new Response("no", { status: 401 })),
  };

  it("refreshes after a 401 and sends once more with the new value", async () => {
    const { credentials, seen } = source({ ok: true, credential: credential({ refreshable: true }) }, fresh);
    const { attempt, calls } = await call({ name: "github", source: credentials }, rejectOld);
    expect(seen.refreshes).toEqual([SECRET]);
    expect(calls.map((c) => c.headers.get("authorization"))).toEqual([SECRET, NEW]);
    expect(attempt).toMatchObject({ ok: true, result: { ok: true, status: 200 } });
  });

  it("sends once more at most: a second 401 is the answer", async () => {
    const { credentials, seen } = source({ ok: true, credential: credential({ refreshable: true }) }, fresh);
    const { attempt, calls } = await call(
      { name: "github", source: credentials },
      {
        "https://api.example.com/x": () => new Response("no", { status: 401 }),
      },
    );
    expect(seen.refreshes).toHaveLength(1);
    expect(calls).toHaveLength(2);
    expect(attempt).toMatchObject({ ok: true, result: { status: 401 } });
  });

  it("does not refresh a credential that cannot be refreshed, nor after a 401 to a request that did not carry it", async () => {
    const plain = source({ ok: true, credential: credential() }, fresh);
    await call({ name: "github", source: plain.credentials }, rejectOld);
    expect(plain.seen.refreshes).toHaveLength(0);
    const elsewhere = source({ ok: true, credential: credential({ refreshable: true, allowedOrigins: ["https://other.example"] }) }, fresh);
    await call({ name: "github", source: elsewhere.credentials }, rejectOld);
    expect(elsewhere.seen.refreshes).toHaveLength(0);
  });

  it("gives the refresh's failure, and sends nothing more", async () => {
    const failed: CredentialLookup = { ok: false, code: "credential_refresh_failed", name: "github", owner: "end_user", detail: "" };
    const { credentials } = source({ ok: true, credential: credential({ refreshable: true }) }, failed);
    const { attempt, calls } = await call({ name: "github", source: credentials }, rejectOld);
    expect(calls).toHaveLength(1);
    expect(attempt).toMatchObject({ ok: false, code: "credential_refresh_failed" });
  });

  it("sends nothing for a missing credential, and reads a source that throws as vault_unavailable", async () => {
    const missing = source({ ok: false, code: "credential_missing", name: "github", owner: null, detail: "" }, fresh);
    const { attempt, calls } = await call({ name: "github", source: missing.credentials }, rejectOld);
    expect(calls).toHaveLength(0);
    expect(attempt).toMatchObject({ ok: false, code: "credential_missing" });
    const broken: CredentialSource = {
      get: () => Promise.reject(new Error(`boom ${SECRET}`)),
      refresh: () => Promise.reject(new Error("boom")),
    };
    const thrown = await call({ name: "github", source: broken }, rejectOld);
    expect(thrown.attempt).toMatchObject({ ok: false, code: "vault_unavailable" });
    expect(JSON.stringify(thrown.attempt)).not.toContain("s3cret");
  });

  it("cancels the body of the MCP server's 401 before it sends again", async () => {
    const { credentials } = source({ ok: true, credential: credential({ refreshable: true }) }, fresh);
    const cancelled: boolean[] = [];
    const fetchImpl: typeof fetch = async (_input, init) => {
      if (new Headers(init?.headers).get("authorization") === NEW) return ok();
      let done = false;
      cancelled.push(false);
      const at = cancelled.length - 1;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (!done) controller.enqueue(new TextEncoder().encode("unauthorized"));
          done = true;
        },
        cancel() {
          cancelled[at] = true;
        },
      });
      return new Response(body, { status: 401 });
    };
    const send = mcpFetch({
      server: new URL("https://api.example.com/mcp"),
      allowPrivateUrls: true,
      allowedOrigins: null,
      fetchImpl,
      auth: { name: "github", source: credentials },
    });
    const response = await send("https://api.example.com/mcp", { method: "POST", body: "{}" });
    expect(response.status).toBe(200);
    expect(cancelled).toEqual([true]);
  });
});
