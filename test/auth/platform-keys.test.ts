import { describe, expect, it } from "vitest";
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair } from "jose";
import { generateSigningKey, loadPlatformKeys, publicJwks, signAccessToken } from "../../src/auth/platform-keys";
import { AUTH_CONFIG, NOW, NOW_S, makePlatformKeys } from "./fixtures";

const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

async function privateJwk(alg: "ES256" | "EdDSA" | "RS256") {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  return exportJWK(privateKey);
}

describe("generateSigningKey", () => {
  it("creates an ES256 private JWK whose kid is its thumbprint", async () => {
    const jwk = JSON.parse(await generateSigningKey());
    expect(jwk).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
    expect(typeof jwk.d).toBe("string");
    expect(jwk.kid).toBe(await calculateJwkThumbprint({ kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y }));
  });
  it("creates a different key each time", async () => {
    expect(await generateSigningKey()).not.toBe(await generateSigningKey());
  });
});

describe("loadPlatformKeys", () => {
  it("loads an ES256 key and keeps its kid", async () => {
    const text = await generateSigningKey();
    const keys = await makePlatformKeys(text);
    expect(keys.alg).toBe("ES256");
    expect(keys.kid).toBe(JSON.parse(text).kid);
  });

  it("loads an EdDSA key and derives a kid when there is none", async () => {
    const jwk = await privateJwk("EdDSA");
    const keys = await makePlatformKeys(JSON.stringify(jwk));
    expect(keys.alg).toBe("EdDSA");
    expect(keys.kid).toBe(await calculateJwkThumbprint({ kty: "OKP", crv: "Ed25519", x: jwk.x as string }));
  });

  it.each(["ES256", "EdDSA"] as const)("publishes a %s public JWK without private members", async (alg) => {
    // Extra private-looking members in the input must not travel either.
    const input = { ...(await privateJwk(alg)), p: "secret-p", k: "secret-k", kid: "k1" };
    const keys = await makePlatformKeys(JSON.stringify(input));
    const published = publicJwks(keys).keys[0] ?? {};
    for (const member of PRIVATE_MEMBERS) expect(published).not.toHaveProperty(member);
    expect(Object.keys(published).sort()).toEqual(
      alg === "ES256" ? ["alg", "crv", "kid", "kty", "use", "x", "y"] : ["alg", "crv", "kid", "kty", "use", "x"],
    );
    expect(JSON.stringify(publicJwks(keys))).not.toContain(input.d as string);
  });

  const refusals: Array<[string, () => Promise<string | undefined>, RegExp]> = [
    ["an absent key", async () => undefined, /is not set/],
    ["an empty key", async () => "", /is not set/],
    ["text that is not JSON", async () => "{kty: EC", /not valid JSON/],
    ["a JSON array", async () => "[]", /JSON object/],
    ["an RSA key", async () => JSON.stringify(await privateJwk("RS256")), /ES256.*EdDSA/],
    ["a P-384 key", async () => JSON.stringify({ ...(await privateJwk("ES256")), crv: "P-384" }), /ES256.*EdDSA/],
    ["a symmetric key", async () => JSON.stringify({ kty: "oct", k: "c2VjcmV0" }), /ES256.*EdDSA/],
    [
      "a public key",
      async () => {
        const { d: _d, ...pub } = await privateJwk("ES256");
        return JSON.stringify(pub);
      },
      /not a private key/,
    ],
    [
      "a key whose alg contradicts its type",
      async () => JSON.stringify({ ...(await privateJwk("ES256")), alg: "HS256" }),
      /does not match/,
    ],
    ["a kid with unsafe characters", async () => JSON.stringify({ ...(await privateJwk("ES256")), kid: "a b/c" }), /kid/],
    ["a key with a bad coordinate", async () => JSON.stringify({ ...(await privateJwk("ES256")), x: "AAAA" }), /imported|does not match/],
    // workerd refuses a mismatched EC pair at import; the sign-and-verify self-test catches the rest.
    [
      "an ES256 private part from another key",
      async () => JSON.stringify({ ...(await privateJwk("ES256")), d: (await privateJwk("ES256")).d }),
      /imported|does not match/,
    ],
    [
      "an EdDSA private part from another key",
      async () => JSON.stringify({ ...(await privateJwk("EdDSA")), d: (await privateJwk("EdDSA")).d }),
      /does not match/,
    ],
  ];
  it.each(refusals)("refuses %s with a message naming the variable", async (_name, text, message) => {
    const input = await text();
    const result = await loadPlatformKeys(input);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatch(/^AUTH_SIGNING_KEY /);
    expect(result.error).toMatch(message);
    const d = /"d":"([^"]+)"/.exec(input ?? "")?.[1];
    if (d) expect(result.error).not.toContain(d);
  });
});

describe("signAccessToken", () => {
  it("sets issuer, audience, subject, tenant, scope, times and a jti", async () => {
    const keys = await makePlatformKeys();
    const token = await signAccessToken(
      keys,
      { tenantId: "acme", subject: "user-1", scopes: ["sessions:read", "tenant:admin"], ttlSeconds: 300 },
      AUTH_CONFIG,
      NOW,
    );
    expect(decodeProtectedHeader(token)).toEqual({ alg: "ES256", kid: keys.kid, typ: "JWT" });
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({
      iss: AUTH_CONFIG.issuer,
      aud: AUTH_CONFIG.audience,
      sub: "user-1",
      tenant_id: "acme",
      scope: "sessions:read tenant:admin",
      iat: NOW_S,
      exp: NOW_S + 300,
    });
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
    const again = await signAccessToken(keys, { tenantId: "acme", subject: "user-1", scopes: [], ttlSeconds: 300 }, AUTH_CONFIG, NOW);
    expect(decodeJwt(again).jti).not.toBe(claims.jti);
  });

  it("names the tenant claim from the config", async () => {
    const keys = await makePlatformKeys();
    const token = await signAccessToken(
      keys,
      { tenantId: "acme", subject: "u", scopes: [], ttlSeconds: 60 },
      { ...AUTH_CONFIG, tenantClaim: "org" },
      NOW,
    );
    const claims = decodeJwt(token);
    expect(claims.org).toBe("acme");
    expect(claims).not.toHaveProperty("tenant_id");
  });

  it("signs with EdDSA keys", async () => {
    const keys = await makePlatformKeys(JSON.stringify(await privateJwk("EdDSA")));
    const token = await signAccessToken(keys, { tenantId: "acme", subject: "u", scopes: [], ttlSeconds: 60 }, AUTH_CONFIG, NOW);
    expect(decodeProtectedHeader(token).alg).toBe("EdDSA");
  });

  it.each([
    ["an invalid tenant", { tenantId: "../x", subject: "u", ttlSeconds: 60 }],
    ["an empty subject", { tenantId: "acme", subject: "", ttlSeconds: 60 }],
    ["a zero ttl", { tenantId: "acme", subject: "u", ttlSeconds: 0 }],
    ["a fractional ttl", { tenantId: "acme", subject: "u", ttlSeconds: 1.5 }],
    ["a ttl over a day", { tenantId: "acme", subject: "u", ttlSeconds: 86_401 }],
  ])("throws for %s", async (_name, claims) => {
    const keys = await makePlatformKeys();
    await expect(signAccessToken(keys, { ...claims, scopes: [] }, AUTH_CONFIG, NOW)).rejects.toThrow(RangeError);
  });
});
