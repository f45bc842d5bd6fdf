/**
 * The credential attacks of the security review, each sent through the gateway: every one
 * must end in a 401 problem (never a 500, never a pass).
 */
import { exportSPKI, importJWK, SignJWT, type JWK } from "jose";
import { describe, expect, it } from "vitest";
import { call, callJson, readProblem } from "../support/api";
import { bearer, freshTenant, platformToken } from "../support/tokens";

const b64url = (value: unknown) => btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
const nowSeconds = () => Math.floor(Date.now() / 1000);

async function platformPublicJwk(): Promise<JWK> {
  const { keys } = (await (await call("/.well-known/jwks.json")).json()) as { keys: JWK[] };
  return keys[0]!;
}

/** A token signed with HMAC, using the platform's *public* key as the shared secret. */
async function hs256WithPublicKey(tenantId: string, form: "jwk" | "pem"): Promise<string> {
  const jwk = await platformPublicJwk();
  const secret =
    form === "jwk" ? JSON.stringify(jwk) : await exportSPKI((await importJWK(jwk, "ES256", { extractable: true })) as CryptoKey);
  return new SignJWT({ tenant_id: tenantId, scope: "sessions:read" })
    .setProtectedHeader({ alg: "HS256", kid: jwk.kid })
    .setIssuer("https://agents.local")
    .setAudience("agent-platform")
    .setSubject("attacker")
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(new TextEncoder().encode(secret));
}

async function expect401(authorization: string) {
  const res = await call("/v1/tenant", { headers: { Authorization: authorization } });
  expect(res.status).toBe(401);
  expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
  expect(await readProblem(res)).toMatchObject({ status: 401, title: expect.any(String) });
}

describe("credential attacks through the gateway", () => {
  const tenantId = freshTenant("attacks");

  it.each([
    [
      "alg: none",
      async () =>
        `${b64url({ alg: "none", typ: "JWT" })}.${b64url({ iss: "https://agents.local", aud: "agent-platform", sub: "x", tenant_id: tenantId, scope: "sessions:read", exp: nowSeconds() + 300 })}.`,
    ],
    ["HS256 signed with the public JWK", () => hs256WithPublicKey(tenantId, "jwk")],
    ["HS256 signed with the public key PEM", () => hs256WithPublicKey(tenantId, "pem")],
    ["an expired token", () => platformToken({ tenantId, scopes: ["sessions:read"], expiresIn: -3600 })],
    ["a token not valid yet", () => platformToken({ tenantId, scopes: ["sessions:read"], claims: { nbf: nowSeconds() + 3600 } })],
    ["a wrong issuer", () => platformToken({ tenantId, scopes: ["sessions:read"], issuer: "https://evil.example" })],
    ["a wrong audience", () => platformToken({ tenantId, scopes: ["sessions:read"], audience: "another-service" })],
    [
      "a tampered signature",
      async () => {
        const token = await platformToken({ tenantId, scopes: ["sessions:read"] });
        const last = token.at(-2) === "A" ? "B" : "A";
        return token.slice(0, -2) + last + token.at(-1);
      },
    ],
    [
      "a tampered payload",
      async () => {
        const [header, , signature] = (await platformToken({ tenantId, scopes: ["sessions:read"] })).split(".");
        return `${header}.${b64url({ iss: "https://agents.local", aud: "agent-platform", sub: "x", tenant_id: "victim", scope: "platform:admin", exp: nowSeconds() + 300 })}.${signature}`;
      },
    ],
    ["no tenant claim", () => platformToken({ tenantId, scopes: ["sessions:read"], claims: { tenant_id: undefined } })],
  ])("refuses %s with a 401", async (_name, makeToken) => {
    await expect401(`Bearer ${await makeToken()}`);
  });

  it("refuses a revoked API key on the very next request", async () => {
    const admin = await bearer({ tenantId, scopes: ["tenant:admin"] });
    const created = (await (await callJson("/v1/api-keys", "POST", { name: "backend", scopes: ["sessions:read"] }, admin)).json()) as {
      key_id: string;
      key: string;
    };
    expect((await call("/v1/tenant", { headers: { Authorization: `Bearer ${created.key}` } })).status).toBe(200);
    expect((await call(`/v1/api-keys/${created.key_id}`, { method: "DELETE", headers: admin })).status).toBe(204);
    await expect401(`Bearer ${created.key}`);
  });

  it("refuses an API key once it has expired", async () => {
    const admin = await bearer({ tenantId, scopes: ["tenant:admin"] });
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const res = await callJson("/v1/api-keys", "POST", { name: "short-lived", scopes: ["sessions:read"], expires_at: expiresAt }, admin);
    expect(res.status).toBe(201);
    const created = (await res.json()) as { key: string };
    expect((await call("/v1/tenant", { headers: { Authorization: `Bearer ${created.key}` } })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1700));
    await expect401(`Bearer ${created.key}`);
  });
});
