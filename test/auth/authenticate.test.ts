import { beforeAll, describe, expect, it } from "vitest";
import type { ApiKeyRecord, GeneratedApiKey } from "../../src/auth/api-keys";
import { ACCESS_TOKEN_TTL_SECONDS, exchangeApiKeyForToken } from "../../src/auth/access-token";
import { MAX_AUTHORIZATION_LENGTH, authenticate, type AuthenticateDeps } from "../../src/auth/authenticate";
import { CLOCK_TOLERANCE_SECONDS } from "../../src/auth/jwt";
import { signAccessToken, type PlatformKeys } from "../../src/auth/platform-keys";
import { AUTH_CONFIG, NOW } from "./fixtures";
import { makePlatformKeys } from "./fixtures";
import { forgedKey, issuedKey, legacyKey, platformApiKeySecret } from "../support/api-keys";

/** A real in-memory key store standing in for the tenant index, counting its lookups. */
class KeyStore {
  readonly records = new Map<string, ApiKeyRecord>();
  lookups: Array<[string, string]> = [];
  /** The tenants a registry would know, and what it was asked for legacy keys. */
  readonly knownTenants = new Set<string>();
  registryAsks: string[] = [];
  failing = false;
  async knows(tenantId: string): Promise<boolean> {
    this.registryAsks.push(tenantId);
    return this.knownTenants.has(tenantId);
  }
  async find(tenantId: string, keyId: string): Promise<ApiKeyRecord | null> {
    this.lookups.push([tenantId, keyId]);
    if (this.failing) throw new Error("store down");
    return this.records.get(`${tenantId}/${keyId}`) ?? null;
  }
  async add(
    tenantId: string,
    overrides: Partial<ApiKeyRecord> = {},
    make: (tenantId: string) => Promise<GeneratedApiKey> = issuedKey,
  ): Promise<string> {
    const key = await make(tenantId);
    this.knownTenants.add(tenantId);
    this.records.set(`${tenantId}/${key.keyId}`, {
      key_id: key.keyId,
      tenant_id: tenantId,
      name: "backend",
      scopes: ["sessions:read", "sessions:write"],
      hash: key.hash,
      created_by: "admin-1",
      created_at: new Date(NOW).toISOString(),
      expires_at: null,
      revoked_at: null,
      last_used_at: null,
      ...overrides,
    });
    return key.plaintext;
  }
}

let keys: PlatformKeys;
let token: string;
let apiKeySecret: CryptoKey;

beforeAll(async () => {
  keys = await makePlatformKeys();
  apiKeySecret = await platformApiKeySecret();
  token = await signAccessToken(
    keys,
    { tenantId: "acme", subject: "user-1", scopes: ["sessions:read"], ttlSeconds: 600 },
    AUTH_CONFIG,
    NOW,
  );
});

function depsWith(store: KeyStore, overrides: Partial<AuthenticateDeps> = {}): AuthenticateDeps {
  return {
    config: AUTH_CONFIG,
    platformKey: keys,
    apiKeySecret,
    findApiKey: (tenantId, keyId) => store.find(tenantId, keyId),
    legacyKeyTenant: (tenantId) => store.knows(tenantId),
    ...overrides,
  };
}

describe("authenticate reads the Authorization header", () => {
  const refused: Array<[string, () => string | null, string]> = [
    ["no header", () => null, "missing_credentials"],
    ["an empty header", () => "", "missing_credentials"],
    ["only spaces", () => "   ", "missing_credentials"],
    ["the scheme alone", () => "Bearer", "malformed_authorization"],
    ["the scheme and a space", () => "Bearer ", "malformed_authorization"],
    ["two spaces", () => `Bearer  ${token}`, "malformed_authorization"],
    ["a tab", () => `Bearer\t${token}`, "malformed_authorization"],
    ["a trailing word", () => `Bearer ${token} extra`, "malformed_authorization"],
    ["the Basic scheme", () => `Basic ${btoa("user:pass")}`, "malformed_authorization"],
    ["a token without scheme", () => token, "malformed_authorization"],
    ["a comma-joined second credential", () => `Bearer ${token}, Bearer ${token}`, "malformed_authorization"],
    ["an oversized header", () => `Bearer ${"a".repeat(MAX_AUTHORIZATION_LENGTH)}`, "credential_too_large"],
    ["an ak_ credential that is not a key", () => "Bearer ak_nonsense", "malformed_api_key"],
    ["a JWT that is garbage", () => "Bearer abc.def", "malformed_token"],
  ];
  it.each(refused)("refuses %s", async (_name, header, reason) => {
    const store = new KeyStore();
    expect(await authenticate(header(), depsWith(store), NOW)).toEqual({ ok: false, reason });
    expect(store.lookups).toEqual([]);
  });

  it.each(["Bearer", "bearer", "BEARER", "bEaReR"])("accepts the scheme spelled %s", async (scheme) => {
    const result = await authenticate(`${scheme} ${token}`, depsWith(new KeyStore()), NOW);
    expect(result).toEqual({
      ok: true,
      principal: { tenantId: "acme", subject: "user-1", scopes: ["sessions:read"], via: "jwt", expiresAt: expect.any(Number) },
    });
  });
});

describe("authenticate with API keys", () => {
  it("looks the key up in its own tenant and accepts it", async () => {
    const store = new KeyStore();
    const plaintext = await store.add("acme.eu");
    const result = await authenticate(`Bearer ${plaintext}`, depsWith(store), NOW);
    expect(result.ok && result.principal).toMatchObject({ tenantId: "acme.eu", via: "api_key" });
    expect(store.lookups).toEqual([["acme.eu", result.ok ? result.principal.keyId : ""]]);
  });

  it("refuses a key once revoked", async () => {
    const store = new KeyStore();
    const plaintext = await store.add("acme");
    for (const record of store.records.values()) record.revoked_at = new Date(NOW).toISOString();
    expect(await authenticate(`Bearer ${plaintext}`, depsWith(store), NOW)).toEqual({ ok: false, reason: "key_revoked" });
  });

  it("refuses a key whose tenant part was swapped for another tenant", async () => {
    const store = new KeyStore();
    const plaintext = await store.add("acme");
    await store.add("globex");
    const swapped = plaintext.replace(/^ak_[^.]+/, `ak_${btoa("globex").replace(/=+$/, "")}`);
    // The tag covers the tenant part: refused before any lookup.
    expect(await authenticate(`Bearer ${swapped}`, depsWith(store), NOW)).toEqual({ ok: false, reason: "key_tag_mismatch" });
    expect(store.lookups).toEqual([]);
  });

  it("refuses a key tagged under another secret, or with its tag altered, before any I/O", async () => {
    const store = new KeyStore();
    const forged = await store.add("acme", {}, forgedKey);
    const issued = await store.add("acme");
    const altered = `${issued.slice(0, -1)}${issued.endsWith("A") ? "B" : "A"}`;
    for (const plaintext of [forged, altered]) {
      expect(await authenticate(`Bearer ${plaintext}`, depsWith(store), NOW)).toEqual({ ok: false, reason: "key_tag_mismatch" });
    }
    expect(store.lookups).toEqual([]);
    expect(store.registryAsks).toEqual([]);
  });

  it("fails closed, with no I/O, when the platform's API-key secret is not configured", async () => {
    const store = new KeyStore();
    const plaintext = await store.add("acme");
    expect(await authenticate(`Bearer ${plaintext}`, depsWith(store, { apiKeySecret: null }), NOW)).toEqual({
      ok: false,
      reason: "api_key_secret_unavailable",
    });
    expect(store.lookups).toEqual([]);
  });

  it("looks a legacy key up only for a tenant the registry knows", async () => {
    const store = new KeyStore();
    const plaintext = await store.add("acme", {}, legacyKey);
    const result = await authenticate(`Bearer ${plaintext}`, depsWith(store), NOW);
    expect(result.ok && result.principal).toMatchObject({ tenantId: "acme", via: "api_key" });
    expect(store.registryAsks).toEqual(["acme"]);

    const stranger = await legacyKey("nobody");
    expect(await authenticate(`Bearer ${stranger.plaintext}`, depsWith(store), NOW)).toEqual({
      ok: false,
      reason: "legacy_key_tenant_unknown",
    });
    expect(store.lookups).toHaveLength(1);
  });

  it("refuses every legacy key, with no I/O, once legacy keys are turned off", async () => {
    const store = new KeyStore();
    const plaintext = await store.add("acme", {}, legacyKey);
    expect(await authenticate(`Bearer ${plaintext}`, depsWith(store, { legacyKeyTenant: null }), NOW)).toEqual({
      ok: false,
      reason: "legacy_keys_off",
    });
    expect(store.lookups).toEqual([]);
    expect(store.registryAsks).toEqual([]);
  });

  it("reports a failing key store", async () => {
    const store = new KeyStore();
    const plaintext = await store.add("acme");
    store.failing = true;
    expect(await authenticate(`Bearer ${plaintext}`, depsWith(store), NOW)).toEqual({ ok: false, reason: "key_store_unavailable" });
  });
});

describe("exchangeApiKeyForToken", () => {
  it("issues a short-lived JWT for the same tenant, subject, scopes and key", async () => {
    const store = new KeyStore();
    const plaintext = await store.add("acme", { scopes: ["sessions:write", "tenant:admin"] });
    const viaKey = await authenticate(`Bearer ${plaintext}`, depsWith(store), NOW);
    if (!viaKey.ok) throw new Error(viaKey.reason);

    const exchanged = await exchangeApiKeyForToken(keys, viaKey.principal, AUTH_CONFIG, NOW);
    if (!exchanged.ok) throw new Error(exchanged.reason);
    expect(exchanged.token).toMatchObject({ token_type: "Bearer", expires_in: ACCESS_TOKEN_TTL_SECONDS });

    const viaJwt = await authenticate(`Bearer ${exchanged.token.access_token}`, depsWith(store), NOW);
    expect(viaJwt).toEqual({
      ok: true,
      principal: { ...viaKey.principal, via: "jwt", expiresAt: (Math.floor(NOW / 1000) + ACCESS_TOKEN_TTL_SECONDS) * 1000 },
    });

    const afterExpiry = NOW + (ACCESS_TOKEN_TTL_SECONDS + CLOCK_TOLERANCE_SECONDS + 1) * 1000;
    expect(await authenticate(`Bearer ${exchanged.token.access_token}`, depsWith(store), afterExpiry)).toEqual({
      ok: false,
      reason: "expired",
    });
  });

  it("refuses to exchange a JWT principal", async () => {
    const viaJwt = await authenticate(`Bearer ${token}`, depsWith(new KeyStore()), NOW);
    if (!viaJwt.ok) throw new Error(viaJwt.reason);
    expect(await exchangeApiKeyForToken(keys, viaJwt.principal, AUTH_CONFIG, NOW)).toEqual({ ok: false, reason: "not_an_api_key" });
  });
});
