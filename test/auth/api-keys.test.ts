import { describe, expect, it } from "vitest";
import {
  KEY_ID_PATTERN,
  MAX_API_KEY_LENGTH,
  generateApiKey,
  hashApiKeySecret,
  parseApiKey,
  verifyApiKey,
  type ApiKeyRecord,
} from "../../src/auth/api-keys";
import { NOW } from "./fixtures";
import { apiKeyTagMatches, loadApiKeySecret } from "../../src/auth/api-key-secret";
import { generateApiKeySecret } from "../../src/auth/dev-signing-key";
import { issuedKey, platformApiKeySecret } from "../support/api-keys";

const b64url = (text: string) => btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

async function issued(tenantId = "acme", overrides: Partial<ApiKeyRecord> = {}) {
  const key = await generateApiKey(tenantId, await platformApiKeySecret());
  const record: ApiKeyRecord = {
    key_id: key.keyId,
    tenant_id: tenantId,
    name: "backend",
    scopes: ["sessions:read", "sessions:write"],
    hash: key.hash,
    created_by: "user-1",
    created_at: new Date(NOW - 86_400_000).toISOString(),
    expires_at: null,
    revoked_at: null,
    last_used_at: null,
    ...overrides,
  };
  return { key, record };
}

describe("generateApiKey and parseApiKey", () => {
  it.each(["acme", "acme.prod_eu-1", "A", "a".repeat(64), "x-_.y"])("round-trips tenant %j", async (tenantId) => {
    const { keyId, plaintext, hash } = await generateApiKey(tenantId, await platformApiKeySecret());
    expect(keyId).toMatch(KEY_ID_PATTERN);
    expect(plaintext.length).toBeLessThanOrEqual(MAX_API_KEY_LENGTH);
    const parsed = parseApiKey(plaintext);
    expect(parsed).toMatchObject({ tenantId, keyId });
    expect(parsed?.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await hashApiKeySecret(parsed?.secret ?? "")).toBe(hash);
    expect(hash).not.toContain(parsed?.secret);
  });

  it("makes a fresh id and secret every time", async () => {
    const [a, b] = await Promise.all([issuedKey("acme"), issuedKey("acme")]);
    expect(a.keyId).not.toBe(b.keyId);
    expect(a.plaintext).not.toBe(b.plaintext);
  });

  it("refuses to generate for an invalid tenant", async () => {
    await expect(issuedKey("../acme")).rejects.toThrow(RangeError);
  });

  const id = "key_0123456789abcdef01234567";
  const secret = "s".repeat(43);
  const malformed: Array<[string, string]> = [
    ["the empty string", ""],
    ["the prefix alone", "ak_"],
    ["an upper-case prefix", `AK_${b64url("acme")}.${id}.${secret}`],
    ["a missing secret", `ak_${b64url("acme")}.${id}`],
    ["an extra segment", `ak_${b64url("acme")}.${id}.${secret}.x`],
    ["a short tag", `ak_${b64url("acme")}.${id}.${secret}.${"t".repeat(42)}`],
    ["a tag with padding", `ak_${b64url("acme")}.${id}.${secret}.${"t".repeat(42)}=`],
    ["two tags", `ak_${b64url("acme")}.${id}.${secret}.${"t".repeat(43)}.${"t".repeat(43)}`],
    ["a short secret", `ak_${b64url("acme")}.${id}.${"s".repeat(42)}`],
    ["a long secret", `ak_${b64url("acme")}.${id}.${"s".repeat(44)}`],
    ["a secret with padding", `ak_${b64url("acme")}.${id}.${"s".repeat(42)}=`],
    ["an upper-case key id", `ak_${b64url("acme")}.${id.toUpperCase()}.${secret}`],
    ["a short key id", `ak_${b64url("acme")}.key_0123.${secret}`],
    ["a raw tenant id", `ak_acme.${id}.${secret}`],
    ["a tenant part decoding to a path", `ak_${b64url("../acme")}.${id}.${secret}`],
    ["a tenant part in standard base64", `ak_${btoa("a?>")}.${id}.${secret}`],
    ["a non-canonical tenant part", `ak_${b64url("acme").slice(0, -1)}R.${id}.${secret}`],
    ["a tenant part of invalid UTF-8", `ak_${b64url("\xff\xfe")}.${id}.${secret}`],
    ["a tenant id of 65 characters", `ak_${b64url("a".repeat(65))}.${id}.${secret}`],
    ["trailing whitespace", `ak_${b64url("acme")}.${id}.${secret} `],
    ["an oversized key", `ak_${"A".repeat(MAX_API_KEY_LENGTH)}.${id}.${secret}`],
  ];
  it.each(malformed)("parses %s as null", (_name, text) => {
    expect(parseApiKey(text)).toBeNull();
  });

  it("parses a hand-built key in the documented format, and one in the legacy format without a tag", () => {
    const body = `ak_${b64url("acme.eu")}.${id}.${secret}`;
    const tag = "t".repeat(43);
    expect(parseApiKey(`${body}.${tag}`)).toEqual({ tenantId: "acme.eu", keyId: id, secret, signed: { body, tag } });
    expect(parseApiKey(body)).toEqual({ tenantId: "acme.eu", keyId: id, secret, signed: null });
  });

  it("tags a generated key under the platform's secret, over everything before the tag", async () => {
    const { plaintext } = await issuedKey("acme");
    const parsed = parseApiKey(plaintext);
    expect(parsed?.signed?.body).toBe(plaintext.slice(0, plaintext.lastIndexOf(".")));
    expect(await apiKeyTagMatches(await platformApiKeySecret(), parsed!.signed!.body, parsed!.signed!.tag)).toBe(true);
  });
});

describe("hashApiKeySecret", () => {
  it("is SHA-256 in lower-case hex", async () => {
    expect(await hashApiKeySecret("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("verifyApiKey", () => {
  it("accepts a valid key as a principal named after the key", async () => {
    const { key, record } = await issued();
    const result = await verifyApiKey(parseApiKey(key.plaintext)!, record, NOW);
    expect(result).toEqual({
      ok: true,
      principal: {
        tenantId: "acme",
        subject: `key:${key.keyId}`,
        scopes: ["sessions:read", "sessions:write"],
        via: "api_key",
        keyId: key.keyId,
      },
    });
  });

  it("accepts a key before its expiry", async () => {
    const { key, record } = await issued("acme", { expires_at: new Date(NOW + 1000).toISOString() });
    expect((await verifyApiKey(parseApiKey(key.plaintext)!, record, NOW)).ok).toBe(true);
  });

  it("never grants platform:admin, even if the record carries it", async () => {
    const { key, record } = await issued("acme", { scopes: ["platform:admin", "tenant:admin"] });
    const result = await verifyApiKey(parseApiKey(key.plaintext)!, record, NOW);
    expect(result.ok && result.principal.scopes).toEqual(["tenant:admin"]);
  });

  it("refuses a tampered secret", async () => {
    const { key, record } = await issued();
    const parsed = parseApiKey(key.plaintext)!;
    const flipped = parsed.secret.slice(0, 10) + (parsed.secret[10] === "A" ? "B" : "A") + parsed.secret.slice(11);
    expect(await verifyApiKey({ ...parsed, secret: flipped }, record, NOW)).toEqual({ ok: false, reason: "key_secret_mismatch" });
  });

  it("refuses a key presented under another tenant", async () => {
    const { key, record } = await issued("acme");
    const parsed = parseApiKey(key.plaintext)!;
    expect(await verifyApiKey({ ...parsed, tenantId: "globex" }, record, NOW)).toEqual({ ok: false, reason: "key_unknown" });
  });

  it("refuses a key the store does not know", async () => {
    const { key } = await issued();
    expect(await verifyApiKey(parseApiKey(key.plaintext)!, null, NOW)).toEqual({ ok: false, reason: "key_unknown" });
  });

  it("refuses a record with another key id", async () => {
    const { key, record } = await issued();
    const other = await issued();
    expect(await verifyApiKey(parseApiKey(key.plaintext)!, { ...record, key_id: other.key.keyId }, NOW)).toEqual({
      ok: false,
      reason: "key_unknown",
    });
  });

  it("refuses a revoked key", async () => {
    const { key, record } = await issued("acme", { revoked_at: new Date(NOW - 1).toISOString() });
    expect(await verifyApiKey(parseApiKey(key.plaintext)!, record, NOW)).toEqual({ ok: false, reason: "key_revoked" });
  });

  it("reports a wrong secret for a revoked key as a secret mismatch", async () => {
    const { key, record } = await issued("acme", { revoked_at: new Date(NOW - 1).toISOString() });
    const parsed = parseApiKey(key.plaintext)!;
    expect(await verifyApiKey({ ...parsed, secret: "x".repeat(43) }, record, NOW)).toEqual({ ok: false, reason: "key_secret_mismatch" });
  });

  it.each([
    ["at its expiry instant", new Date(NOW).toISOString()],
    ["after its expiry", new Date(NOW - 1000).toISOString()],
    ["with an unreadable expiry", "not a date"],
  ])("refuses a key %s", async (_name, expiresAt) => {
    const { key, record } = await issued("acme", { expires_at: expiresAt });
    expect(await verifyApiKey(parseApiKey(key.plaintext)!, record, NOW)).toEqual({ ok: false, reason: "key_expired" });
  });

  it.each([
    ["an empty", ""],
    ["an upper-case", "A".repeat(64)],
    ["a short", "a".repeat(63)],
  ])("refuses a record with %s hash", async (_name, hash) => {
    const { key, record } = await issued("acme", { hash });
    expect(await verifyApiKey(parseApiKey(key.plaintext)!, record, NOW)).toEqual({ ok: false, reason: "key_secret_mismatch" });
  });
});

describe("loadApiKeySecret", () => {
  it.each([
    ["unset", undefined, /is not set/],
    ["empty", "", /is not set/],
    ["not base64url", "a+b/c=".repeat(10), /base64url/],
    ["shorter than 32 bytes", generateApiKeySecret().slice(0, 40), /at least 32/],
  ])("refuses a secret that is %s, naming the variable", async (_name, text, problem) => {
    const loaded = await loadApiKeySecret(text);
    expect(loaded.ok).toBe(false);
    if (!loaded.ok) {
      expect(loaded.error).toMatch(/^AUTH_API_KEY_SECRET /);
      expect(loaded.error).toMatch(problem);
    }
  });

  it("loads a generated one", async () => {
    expect((await loadApiKeySecret(generateApiKeySecret())).ok).toBe(true);
  });
});
