import { importJWK, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { call, readProblem } from "../support/api";
import { platformToken } from "../support/tokens";

describe("GET /health", () => {
  it("answers 200 ok without credentials", async () => {
    const res = await call("/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it("answers HEAD like GET, without a body", async () => {
    const res = await call("/health", { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
  });
});

describe("GET /openapi.json", () => {
  it("serves an OpenAPI 3.1 document with both bearer security schemes", async () => {
    const res = await call("/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    const doc = (await res.json()) as {
      openapi: string;
      info: { title: string; version: string };
      servers: unknown[];
      tags: { name: string }[];
      components: { securitySchemes: Record<string, { type: string; scheme: string; bearerFormat: string }> };
      paths: Record<string, unknown>;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.title).toBeTruthy();
    expect(doc.servers.length).toBeGreaterThan(0);
    expect(doc.tags.map((tag) => tag.name)).toContain("Admin");
    expect(doc.components.securitySchemes.bearerJwt).toMatchObject({ type: "http", scheme: "bearer", bearerFormat: "JWT" });
    expect(doc.components.securitySchemes.bearerApiKey).toMatchObject({ type: "http", scheme: "bearer" });
    expect(Object.keys(doc.paths)).toContain("/v1/api-keys");
  });
});

describe("GET /docs", () => {
  it("serves an HTML reference that loads /openapi.json", async () => {
    const res = await call("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('data-url="/openapi.json"');
  });

  it("allows scripts from its own origin only, and runs no inline script", async () => {
    const res = await call("/docs");
    const policy = res.headers.get("Content-Security-Policy") ?? "";
    const directives = new Map(
      policy.split(";").map((part) => {
        const [name = "", ...values] = part.trim().split(/\s+/);
        return [name, values] as const;
      }),
    );
    expect(directives.get("default-src")).toEqual(["'none'"]);
    expect(directives.get("script-src")).toEqual(["'self'"]);
    expect(directives.get("connect-src")).toEqual(["'self'"]);
    expect(directives.get("frame-ancestors")).toEqual(["'none'"]);
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");

    const html = await res.text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes = "", body = ""] of scripts) {
      const src = /\bsrc="([^"]*)"/.exec(attributes)?.[1];
      if (src !== undefined) expect(src).toMatch(/^\/[^/]/);
      else expect(attributes).toContain('type="application/json"');
      expect(body.trim()).toBe("");
    }
  });

  it("names no other origin, so it works offline", async () => {
    const html = await (await call("/docs")).text();
    expect(html).not.toMatch(/(https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i);
    // Scalar's defaults would load fonts from its CDN and report telemetry.
    expect(html).toContain("&quot;withDefaultFonts&quot;:false");
    expect(html).toContain("&quot;telemetry&quot;:false");
  });

  it("serves its script from the Worker's assets: the pinned @scalar/api-reference bundle", async () => {
    const html = await (await call("/docs")).text();
    const src = /<script src="([^"]+)"/.exec(html)?.[1];
    expect(src).toBe("/docs/assets/api-reference.js");
    const res = await call(src!);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/javascript/);
    expect(res.headers.get("X-Request-Id")).toBeTruthy();
    const script = await res.text();
    expect(script.length).toBeGreaterThan(1_000_000);
    expect(script).toContain("`1.72.1`");
  });

  it("answers an unknown asset with a 404 problem and a POST to one with 405", async () => {
    const missing = await call("/docs/assets/nothing.js");
    expect(missing.status).toBe(404);
    expect((await readProblem(missing)).status).toBe(404);
    const post = await call("/docs/assets/api-reference.js", { method: "POST" });
    expect(post.status).toBe(405);
    await post.body?.cancel();
  });
});

describe("GET /.well-known/jwks.json", () => {
  it("publishes only public members of the signing key", async () => {
    const res = await call("/.well-known/jwks.json");
    expect(res.status).toBe(200);
    const { keys } = (await res.json()) as { keys: Record<string, string>[] };
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
    expect(keys[0]).not.toHaveProperty("d");
  });

  it("publishes the key that verifies platform tokens", async () => {
    const { keys } = (await (await call("/.well-known/jwks.json")).json()) as { keys: (Record<string, string> & { kid: string })[] };
    const jwk = keys[0]!;
    const token = await platformToken({ tenantId: "acme" });
    const { protectedHeader } = await jwtVerify(token, await importJWK(jwk, "ES256"));
    expect(protectedHeader.kid).toBe(jwk.kid);
  });
});
