/**
 * What only a real `wrangler dev` shows about the gateway's edge: a GET with a body arriving
 * over HTTP (with a length, or in chunks), the API reference served from the Worker's static assets, failed
 * authentications counted by the Rate Limiting binding as wrangler runs it locally, and forged
 * API keys leaving no file in the platform's storage.
 */
import { createHmac, randomBytes } from "node:crypto";
import { readdir } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "./support/stack";

/** Far above the binding's own limit (60 a minute in wrangler.json), so only the binding blocks. */
const IN_ISOLATE_LIMIT = "1000";
const BINDING_LIMIT = 60;

/**
 * The binding counts each key in windows aligned to the wall-clock minute. A run that crosses a boundary (a slow
 * machine) is split between two windows, so it runs once more under a fresh key, from the start of a minute.
 */
async function inOneWindow(run: () => Promise<number[]>): Promise<number[]> {
  const minute = () => Math.floor(Date.now() / 60_000);
  const start = minute();
  const statuses = await run();
  if (minute() === start) return statuses;
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 40_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
  return run();
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request written on a socket as given: Node's fetch will not send a GET with a body. */
function rawRequest(
  base: string,
  method: string,
  path: string,
  body: string,
  headers: Record<string, string> = { "Content-Length": String(Buffer.byteLength(body)) },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, headers: { "Content-Type": "application/json", ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Files under the platform's storage directory: each Durable Object that was ever woken has its own. */
async function storageFiles(root: string): Promise<string[]> {
  const entries = await readdir(join(root, "state"), { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** An API key for a tenant nobody created: tagged under a secret of our own, or in the untagged legacy format. */
function strangerKey(tagged: boolean): string {
  const tenant = Buffer.from(`ghost-${randomBytes(6).toString("hex")}`).toString("base64url");
  const body = `ak_${tenant}.key_${randomBytes(12).toString("hex")}.${randomBytes(32).toString("base64url")}`;
  return tagged ? `${body}.${createHmac("sha256", randomBytes(32)).update(body).digest("base64url")}` : body;
}

describe("the gateway behind a real wrangler dev", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ vars: { AUTH_FAILURES_PER_MINUTE: IN_ISOLATE_LIMIT } });
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  it("answers a GET with a body on every documented path with a 400 problem, not a 500", async () => {
    const doc = (await (await fetch(`${stack.platform.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    const paths = Object.keys(doc.paths).map((template) => template.replace(/\{\w+\}/g, "sample"));
    expect(paths.length).toBeGreaterThan(20);
    for (const path of paths) {
      const res = await rawRequest(stack.platform.url, "GET", path, '{"a":1}');
      expect(res.status, `GET ${path}: ${res.body}`).toBe(400);
      expect(res.headers["content-type"], path).toMatch(/^application\/problem\+json/);
    }
  });

  it("drops a GET's chunked body before the Worker, and never reads its bytes as another request", async () => {
    // The runtime takes the chunks off the connection and hands the Worker a GET with neither a
    // body nor a Transfer-Encoding (so the no-body rule has nothing to see): it is served as the
    // bodiless GET it has become. What matters is that the chunks are not left on the connection.
    const url = new URL(stack.platform.url);
    for (const path of ["/health", "/v1/sessions"]) {
      const hidden = `GET /v1/smuggled HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`;
      const wire =
        `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nTransfer-Encoding: chunked\r\n\r\n${hidden.length.toString(16)}\r\n${hidden}\r\n0\r\n\r\n` +
        `GET /health HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`;
      const answered = await new Promise<string>((resolve, reject) => {
        let text = "";
        const socket = connect(Number(url.port), url.hostname, () => socket.write(wire));
        socket.setEncoding("utf8");
        socket.on("data", (chunk: string) => (text += chunk));
        socket.on("end", () => resolve(text));
        socket.on("error", reject);
      });
      // The GET's own answer (401 without credentials on /v1) and the closing /health: no third for the hidden request.
      expect(answered.match(/HTTP\/1\.1 \d{3}/g), path).toEqual([path === "/health" ? "HTTP/1.1 200" : "HTTP/1.1 401", "HTTP/1.1 200"]);
    }
  });

  it("serves /docs and its pinned script from the Worker, under a same-origin script policy", async () => {
    const page = await fetch(`${stack.platform.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get("Content-Security-Policy")).toContain("script-src 'self';");
    const src = /<script src="([^"]+)"/.exec(await page.text())?.[1];
    expect(src).toBe("/docs/assets/api-reference.js");
    const script = await fetch(`${stack.platform.url}${src}`);
    expect(script.status).toBe(200);
    expect(script.headers.get("Content-Type")).toMatch(/javascript/);
    expect(await script.text()).toContain("`1.72.1`");
  });

  it("writes no storage for forged API keys of unknown tenants, tagged or in the legacy format", async () => {
    const get = async (key: string) => {
      const res = await fetch(`${stack.platform.url}/v1/tenant`, {
        headers: { Authorization: `Bearer ${key}`, "CF-Connecting-IP": "198.51.100.77" },
      });
      await res.body?.cancel();
      return res.status;
    };
    // A legacy key asks the registry (one object, which every tenant's first request writes to anyway): let it exist first.
    expect(await get(strangerKey(false))).toBe(401);
    const before = await storageFiles(stack.platform.root);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push(await get(strangerKey(true)), await get(strangerKey(false)));
    expect(statuses.every((status) => status === 401)).toBe(true);
    const after = await storageFiles(stack.platform.root);
    console.log(
      `forged keys: ${JSON.stringify({ requests: statuses.length, storage_files_before: before.length, storage_files_after: after.length })}`,
    );
    expect(after).toEqual(before);
  });

  it("lets every other tenant create and use keys after one forger's keys passed the binding's limit from the same address", async () => {
    const forged = (tenant: string) => {
      const body = `ak_${Buffer.from(tenant).toString("base64url")}.key_${randomBytes(12).toString("hex")}.${randomBytes(32).toString("base64url")}`;
      return `Bearer ${body}.${createHmac("sha256", randomBytes(32)).update(body).digest("base64url")}`;
    };
    const statuses = await inOneWindow(async () => {
      const victim = `victim-${randomBytes(4).toString("hex")}`;
      const seen: number[] = [];
      for (let i = 0; i <= BINDING_LIMIT + 1; i++) {
        const res = await fetch(`${stack.platform.url}/v1/tenant`, { headers: { Authorization: forged(victim) } });
        seen.push(res.status);
        await res.body?.cancel();
      }
      return seen;
    });
    expect(statuses.at(-1)).toBe(429);

    const admin = await stack.client(`other-${randomBytes(4).toString("hex")}`, "admin", ["tenant:admin"]);
    const { key } = await admin.expect<{ key: string }>(201, "POST", "/v1/api-keys", { name: "backend", scopes: ["tenant:admin"] });
    // A key first seen after the forger's failures: this gateway never verified it, and it stands.
    const used = await fetch(`${stack.platform.url}/v1/api-keys`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "second", scopes: ["sessions:read"] }),
    });
    expect(used.status, await used.clone().text()).toBe(201);
  });

  it("blocks through the Rate Limiting binding once it passes the binding's limit: locally, by the tenant a forged key names", async () => {
    // No address is trusted under a local runtime: the one a client claims changes nothing.
    const address = () => `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    // Tagged under a secret of our own: it names its tenant (forged keys of the legacy format share one window instead).
    const statuses = await inOneWindow(async () => {
      const body = `ak_${Buffer.from(`acme-${randomBytes(4).toString("hex")}`).toString("base64url")}.key_0123456789abcdef01234567.${"A".repeat(43)}`;
      const bogus = `Bearer ${body}.${createHmac("sha256", randomBytes(32)).update(body).digest("base64url")}`;
      const seen: number[] = [];
      for (let i = 0; i <= BINDING_LIMIT; i++) {
        const res = await fetch(`${stack.platform.url}/v1/tenant`, { headers: { Authorization: bogus, "CF-Connecting-IP": address() } });
        seen.push(res.status);
        await res.body?.cancel();
      }
      return seen;
    });
    expect(statuses.slice(0, BINDING_LIMIT).every((status) => status === 401)).toBe(true);
    expect(statuses[BINDING_LIMIT]).toBe(429);
  });
});
