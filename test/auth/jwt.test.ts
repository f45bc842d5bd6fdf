import { beforeAll, describe, expect, it } from "vitest";
import { exportSPKI, generateKeyPair, SignJWT } from "jose";
import { CLOCK_TOLERANCE_SECONDS, exceedsMaxLifetime, grantableScopes, MAX_JWT_BYTES, verifyJwt, type JwtDeps } from "../../src/auth/jwt";
import type { AuthFailure } from "../../src/auth/failure";
import { signAccessToken, type PlatformKeys } from "../../src/auth/platform-keys";
import {
  AUTH_CONFIG,
  NOW,
  NOW_S,
  b64json,
  makeExternalIdp,
  makePlatformKeys,
  signToken,
  tamperSegment,
  type ExternalIdp,
} from "./fixtures";

const DAY_S = 24 * 60 * 60;

let keys: PlatformKeys;
let idp: ExternalIdp;
let deps: JwtDeps;
let otherEs256: CryptoKey;
let es384: CryptoKey;

beforeAll(async () => {
  keys = await makePlatformKeys();
  idp = await makeExternalIdp("ES384");
  deps = { config: AUTH_CONFIG, platformKey: keys, externalJwks: idp.jwks };
  otherEs256 = (await generateKeyPair("ES256")).privateKey;
  es384 = (await generateKeyPair("ES384")).privateKey;
});

const platform = (spec: Parameters<typeof signToken>[2] = {}) =>
  signToken(keys.privateKey, "ES256", { ...spec, header: { kid: keys.kid, ...spec.header } });
const external = (spec: Parameters<typeof signToken>[2] = {}) =>
  signToken(idp.privateKey, "ES384", {
    ...spec,
    header: { kid: idp.kid, ...spec.header },
    claims: { iss: AUTH_CONFIG.externalIssuer, aud: AUTH_CONFIG.externalAudience, ...spec.claims },
  });

describe("verifyJwt refuses", () => {
  const cases: Array<[string, () => Promise<string>, AuthFailure]> = [
    [
      "alg none with an empty signature",
      async () => `${b64json({ alg: "none" })}.${b64json({ iss: AUTH_CONFIG.issuer, sub: "u", tenant_id: "acme", exp: NOW_S + 60 })}.`,
      "alg_not_allowed",
    ],
    [
      "alg none with a signature",
      async () => `${b64json({ alg: "none", typ: "JWT" })}.${b64json({ iss: AUTH_CONFIG.issuer })}.c2ln`,
      "alg_not_allowed",
    ],
    [
      "HS256 keyed with the platform's public JWK",
      async () =>
        new SignJWT({ iss: AUTH_CONFIG.issuer, aud: AUTH_CONFIG.audience, sub: "u", tenant_id: "acme", exp: NOW_S + 60 })
          .setProtectedHeader({ alg: "HS256", kid: keys.kid })
          .sign(new TextEncoder().encode(JSON.stringify(keys.publicJwk))),
      "alg_not_allowed",
    ],
    [
      "HS256 keyed with the platform's public key PEM",
      async () =>
        new SignJWT({ iss: AUTH_CONFIG.issuer, aud: AUTH_CONFIG.audience, sub: "u", tenant_id: "acme", exp: NOW_S + 60 })
          .setProtectedHeader({ alg: "HS256" })
          .sign(new TextEncoder().encode(await exportSPKI(keys.publicKey))),
      "alg_not_allowed",
    ],
    [
      "HS256 claiming the external issuer",
      async () =>
        new SignJWT({ iss: AUTH_CONFIG.externalIssuer, aud: AUTH_CONFIG.externalAudience, sub: "u", tenant_id: "acme", exp: NOW_S + 60 })
          .setProtectedHeader({ alg: "HS256", kid: idp.kid })
          .sign(new TextEncoder().encode("shared")),
      "alg_not_allowed",
    ],
    [
      "RS384, an asymmetric algorithm outside the allow-list",
      async () =>
        signToken((await generateKeyPair("RS384")).privateKey, "RS384", {
          claims: { iss: AUTH_CONFIG.externalIssuer, aud: AUTH_CONFIG.externalAudience },
        }),
      "alg_not_allowed",
    ],
    ["an allowed algorithm that is not the platform key's", async () => signToken(es384, "ES384"), "alg_not_allowed"],
    ["a platform token signed by another key", async () => signToken(otherEs256, "ES256"), "bad_signature"],
    [
      "the external provider's ES384 key claiming the platform issuer",
      async () => external({ claims: { iss: AUTH_CONFIG.issuer, aud: AUTH_CONFIG.audience }, header: { kid: undefined } }),
      "alg_not_allowed",
    ],
    ["a platform token with another kid", async () => platform({ header: { kid: "someone-else" } }), "kid_mismatch"],
    ["an expired token", async () => platform({ claims: { exp: NOW_S - CLOCK_TOLERANCE_SECONDS - 1 } }), "expired"],
    ["a token not yet valid", async () => platform({ claims: { nbf: NOW_S + CLOCK_TOLERANCE_SECONDS + 1 } }), "not_yet_valid"],
    ["a token without exp", async () => platform({ omit: ["exp"] }), "no_expiry"],
    ["a token valid for ten years", async () => platform({ claims: { exp: NOW_S + 10 * 365 * DAY_S } }), "lifetime_too_long"],
    [
      "a token without iat whose exp is a day and a minute away",
      async () => platform({ omit: ["iat"], claims: { exp: NOW_S + DAY_S + 60 } }),
      "lifetime_too_long",
    ],
    [
      "a token issued two days ago that still has minutes to run",
      async () => platform({ claims: { iat: NOW_S - 2 * DAY_S, exp: NOW_S + 600 } }),
      "lifetime_too_long",
    ],
    ["an external token valid for ten years", async () => external({ claims: { exp: NOW_S + 10 * 365 * DAY_S } }), "lifetime_too_long"],
    ["a non-numeric exp", async () => platform({ claims: { exp: "later" as unknown as number } }), "claim_invalid"],
    ["an unknown issuer", async () => platform({ claims: { iss: "https://evil.test" } }), "issuer_unknown"],
    ["a token without iss", async () => platform({ omit: ["iss"] }), "issuer_unknown"],
    ["the wrong audience", async () => platform({ claims: { aud: "other-service" } }), "aud_mismatch"],
    [
      "a platform token with the external audience",
      async () => platform({ claims: { aud: AUTH_CONFIG.externalAudience } }),
      "aud_mismatch",
    ],
    ["an external token with the platform audience", async () => external({ claims: { aud: AUTH_CONFIG.audience } }), "aud_mismatch"],
    ["a token without aud", async () => platform({ omit: ["aud"] }), "aud_mismatch"],
    ["a platform token with its signature stripped", async () => (await platform()).replace(/[^.]+$/, ""), "bad_signature"],
    ["a tampered signature", async () => tamperSegment(await platform(), 2), "bad_signature"],
    [
      "a tampered payload",
      async () => {
        const [header, , signature] = (await platform()).split(".");
        const forged = b64json({
          iss: AUTH_CONFIG.issuer,
          aud: AUTH_CONFIG.audience,
          sub: "user-1",
          tenant_id: "victim",
          exp: NOW_S + 600,
        });
        return `${header}.${forged}.${signature}`;
      },
      "bad_signature",
    ],
    ["a missing tenant claim", async () => platform({ omit: ["tenant_id"] }), "no_tenant_claim"],
    ["an empty tenant claim", async () => platform({ claims: { tenant_id: "" } }), "no_tenant_claim"],
    ["a tenant id with a slash", async () => platform({ claims: { tenant_id: "../acme" } }), "bad_tenant_id"],
    ["a tenant id with a space", async () => platform({ claims: { tenant_id: "ac me" } }), "bad_tenant_id"],
    ["a tenant id of 65 characters", async () => platform({ claims: { tenant_id: "a".repeat(65) } }), "bad_tenant_id"],
    ["a numeric tenant id", async () => platform({ claims: { tenant_id: 42 } }), "bad_tenant_id"],
    ["a missing sub", async () => platform({ omit: ["sub"] }), "no_subject"],
    ["an empty sub", async () => platform({ claims: { sub: "" } }), "no_subject"],
    [
      "a platform token naming an API key as subject without key_id",
      async () => platform({ claims: { sub: "key:key_0123456789abcdef01234567" } }),
      "key_claims_mismatch",
    ],
    [
      "a platform token whose key_id names another key than its subject",
      async () => platform({ claims: { sub: "key:key_0123456789abcdef01234567", key_id: "key_76543210fedcba9876543210" } }),
      "key_claims_mismatch",
    ],
    [
      "a platform token with a key_id but a user subject",
      async () => platform({ claims: { key_id: "key_0123456789abcdef01234567" } }),
      "key_claims_mismatch",
    ],
    [
      "a platform token with a malformed key_id",
      async () => platform({ claims: { sub: "key:nope", key_id: "nope" } }),
      "key_claims_mismatch",
    ],
    [
      "an external token naming an API key as subject",
      async () => external({ claims: { sub: "key:key_0123456789abcdef01234567" } }),
      "subject_reserved",
    ],
    ["an external token whose kid is not in the JWKS", async () => external({ header: { kid: "rotated-away" } }), "jwks_key_not_found"],
    ["an oversized token", async () => platform({ claims: { padding: "x".repeat(MAX_JWT_BYTES) } }), "credential_too_large"],
    ["garbage", async () => "not-a-token", "malformed_token"],
    ["three segments of garbage", async () => "abc.def.ghi", "malformed_token"],
    ["a header that is not JSON", async () => `${btoa("{alg").replace(/=+$/, "")}.${b64json({})}.c2ln`, "malformed_token"],
    ["a JWE (five segments)", async () => `${b64json({ alg: "dir", enc: "A256GCM" })}..aXY.Y2lwaGVy.dGFn`, "malformed_token"],
    ["the empty string", async () => "", "malformed_token"],
  ];

  it.each(cases)("%s", async (_name, build, reason) => {
    const result = await verifyJwt(await build(), deps, NOW);
    expect(result).toEqual({ ok: false, reason });
  });

  it("platform tokens when no signing key is configured", async () => {
    const result = await verifyJwt(await platform(), { ...deps, platformKey: null }, NOW);
    expect(result).toEqual({ ok: false, reason: "platform_key_unavailable" });
  });

  it("external tokens when no JWKS is configured", async () => {
    const result = await verifyJwt(await external(), { config: AUTH_CONFIG, platformKey: keys }, NOW);
    expect(result).toEqual({ ok: false, reason: "external_not_configured" });
  });

  it("external tokens when no external audience is configured", async () => {
    const result = await verifyJwt(await external(), { ...deps, config: { ...AUTH_CONFIG, externalAudience: undefined } }, NOW);
    expect(result).toEqual({ ok: false, reason: "external_not_configured" });
  });

  it("the external issuer when none is configured", async () => {
    const result = await verifyJwt(await external(), { ...deps, config: { ...AUTH_CONFIG, externalIssuer: undefined } }, NOW);
    expect(result).toEqual({ ok: false, reason: "issuer_unknown" });
  });
});

describe("verifyJwt accepts", () => {
  it("a token that lives exactly AUTH_MAX_TOKEN_AGE_SECONDS", async () => {
    const result = await verifyJwt(await platform({ claims: { iat: NOW_S, exp: NOW_S + DAY_S } }), deps, NOW);
    expect(result.ok).toBe(true);
  });

  it("a longer token when AUTH_MAX_TOKEN_AGE_SECONDS allows it", async () => {
    const config = { ...AUTH_CONFIG, maxTokenAgeSeconds: 7 * DAY_S };
    const result = await verifyJwt(await platform({ claims: { exp: NOW_S + 7 * DAY_S } }), { ...deps, config }, NOW);
    expect(result.ok).toBe(true);
  });

  it("platform:admin from the platform's own issuer", async () => {
    const result = await verifyJwt(await platform({ claims: { scope: "platform:admin" } }), deps, NOW);
    expect(result.ok && result.principal.scopes).toEqual(["platform:admin"]);
  });

  it("an external token claiming platform:admin, without that scope", async () => {
    const result = await verifyJwt(await external({ claims: { scope: "sessions:read platform:admin" } }), deps, NOW);
    expect(result.ok && result.principal.scopes).toEqual(["sessions:read"]);
    const viaScp = await verifyJwt(await external({ claims: { scp: ["platform:admin"] }, omit: ["scope"] }), deps, NOW);
    expect(viaScp.ok && viaScp.principal.scopes).toEqual([]);
  });

  it("platform:admin from the external provider when AUTH_EXTERNAL_PLATFORM_ADMIN is true", async () => {
    const config = { ...AUTH_CONFIG, externalPlatformAdmin: true };
    const result = await verifyJwt(await external({ claims: { scope: "platform:admin" } }), { ...deps, config }, NOW);
    expect(result.ok && result.principal.scopes).toEqual(["platform:admin"]);
  });

  it("a platform token from signAccessToken", async () => {
    const token = await signAccessToken(
      keys,
      { tenantId: "acme", subject: "user-1", scopes: ["sessions:read"], ttlSeconds: 600 },
      AUTH_CONFIG,
      NOW,
    );
    // The principal carries the token's expiry, which bounds the event streams it opens.
    expect(await verifyJwt(token, deps, NOW)).toEqual({
      ok: true,
      principal: {
        tenantId: "acme",
        subject: "user-1",
        scopes: ["sessions:read"],
        via: "jwt",
        expiresAt: (Math.floor(NOW / 1000) + 600) * 1000,
      },
    });
  });

  it("a token expired by less than the clock tolerance", async () => {
    const result = await verifyJwt(await platform({ claims: { exp: NOW_S - CLOCK_TOLERANCE_SECONDS + 5 } }), deps, NOW);
    expect(result.ok).toBe(true);
  });

  it("a token whose nbf is within the clock tolerance", async () => {
    const result = await verifyJwt(await platform({ claims: { nbf: NOW_S + CLOCK_TOLERANCE_SECONDS - 5 } }), deps, NOW);
    expect(result.ok).toBe(true);
  });

  it("a platform token without kid", async () => {
    const result = await verifyJwt(await signToken(keys.privateKey, "ES256"), deps, NOW);
    expect(result.ok).toBe(true);
  });

  it("the tenant from a custom claim name", async () => {
    const config = { ...AUTH_CONFIG, tenantClaim: "org" };
    const token = await platform({ claims: { org: "globex" }, omit: ["tenant_id"] });
    const result = await verifyJwt(token, { ...deps, config }, NOW);
    expect(result.ok && result.principal.tenantId).toBe("globex");
    expect(await verifyJwt(await platform(), { ...deps, config }, NOW)).toEqual({ ok: false, reason: "no_tenant_claim" });
  });

  it("known scopes from the space-separated scope claim, dropping unknown ones", async () => {
    const result = await verifyJwt(await platform({ claims: { scope: "openid tenant:admin  sessions:read bogus" } }), deps, NOW);
    expect(result.ok && result.principal.scopes).toEqual(["sessions:read", "tenant:admin"]);
  });

  it("no scopes when the token carries none", async () => {
    const result = await verifyJwt(await platform({ omit: ["scope"] }), deps, NOW);
    expect(result.ok && result.principal.scopes).toEqual([]);
  });

  it("an external token verified through the JWKS with the external audience", async () => {
    const token = await external({ claims: { sub: "auth0|42", tenant_id: "initech", scp: ["sessions:write", 7] }, omit: ["scope"] });
    const result = await verifyJwt(token, deps, NOW);
    expect(result).toEqual({
      ok: true,
      principal: { tenantId: "initech", subject: "auth0|42", scopes: ["sessions:write"], via: "jwt", expiresAt: expect.any(Number) },
    });
  });

  it("external tokens in RS256 and EdDSA", async () => {
    for (const alg of ["RS256", "EdDSA"] as const) {
      const other = await makeExternalIdp(alg);
      const token = await signToken(other.privateKey, alg, {
        header: { kid: other.kid },
        claims: { iss: AUTH_CONFIG.externalIssuer, aud: AUTH_CONFIG.externalAudience },
      });
      expect((await verifyJwt(token, { ...deps, externalJwks: other.jwks }, NOW)).ok).toBe(true);
    }
  });

  it("the API key id only from platform-issued tokens", async () => {
    const keyId = "key_0123456789abcdef01234567";
    const fromPlatform = await verifyJwt(await platform({ claims: { sub: `key:${keyId}`, key_id: keyId } }), deps, NOW);
    expect(fromPlatform.ok && fromPlatform.principal.keyId).toBe(keyId);
    const fromIdp = await verifyJwt(await external({ claims: { key_id: keyId } }), deps, NOW);
    expect(fromIdp.ok && fromIdp.principal.keyId).toBeUndefined();
  });
});

describe("exceedsMaxLifetime", () => {
  const max = DAY_S;
  it.each([
    ["a short token", { iat: NOW_S, exp: NOW_S + 600 }, false],
    ["exactly the bound from iat", { iat: NOW_S, exp: NOW_S + max }, false],
    ["one second over the bound from iat", { iat: NOW_S, exp: NOW_S + max + 1 }, true],
    ["no iat, exp at the bound plus the clock tolerance", { exp: NOW_S + max + CLOCK_TOLERANCE_SECONDS }, false],
    ["no iat, exp one second past that", { exp: NOW_S + max + CLOCK_TOLERANCE_SECONDS + 1 }, true],
    ["an old iat with a near exp", { iat: NOW_S - max, exp: NOW_S + 1 }, true],
    ["a future iat cannot stretch exp past now + bound", { iat: NOW_S + max, exp: NOW_S + 2 * max }, true],
    ["no exp at all", {}, true],
  ])("%s", (_name, claims, expected) => {
    expect(exceedsMaxLifetime(claims, NOW, max)).toBe(expected);
  });
});

describe("grantableScopes", () => {
  const all = ["sessions:read", "platform:admin"] as const;
  it("keeps every scope of the platform issuer", () => {
    expect(grantableScopes([...all], "platform", { externalPlatformAdmin: false })).toEqual(all);
  });
  it("drops platform:admin from the external provider unless configured", () => {
    expect(grantableScopes([...all], "external", { externalPlatformAdmin: false })).toEqual(["sessions:read"]);
    expect(grantableScopes([...all], "external", { externalPlatformAdmin: true })).toEqual(all);
  });
});

describe("a token verified once", () => {
  it("is accepted again without its signature checked, until it expires, and no other token rides on it", async () => {
    const config = { ...AUTH_CONFIG };
    const token = await platform({ claims: { scope: "sessions:read", exp: NOW_S + 600 } });
    const first = await verifyJwt(token, { ...deps, config }, NOW);
    expect(first.ok).toBe(true);
    // Without the platform key nothing could be verified: the same token is found, not checked.
    const keyless = { ...deps, config, platformKey: null };
    const again = await verifyJwt(token, keyless, NOW + 1_000);
    expect(again).toEqual(first);
    // Its principal is shared, so it cannot be changed.
    expect(() => (again.ok ? again.principal.scopes.push("tenant:admin") : undefined)).toThrow();
    // A token that differs in one character is a token of its own: checked, and refused here.
    expect((await verifyJwt(tamperSegment(token, 1), keyless, NOW + 1_000)).ok).toBe(false);
    // Past its expiry it is checked again, and refused as any expired token is.
    expect(await verifyJwt(token, { ...deps, config }, NOW + (600 + CLOCK_TOLERANCE_SECONDS + 1) * 1000)).toEqual({
      ok: false,
      reason: "expired",
    });
    // Another configuration keeps its own: nothing verified under one is taken under another.
    expect((await verifyJwt(token, { ...deps, config: { ...config }, platformKey: null }, NOW + 1_000)).ok).toBe(false);
  });
});
