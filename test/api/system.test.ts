import { importJWK, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { call } from "../support/api";
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
    expect(html).toContain("/openapi.json");
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
