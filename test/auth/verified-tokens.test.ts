import { describe, expect, it } from "vitest";
import type { Principal } from "../../src/auth/principal";
import { MAX_KEPT_MS, MAX_TOKENS, VerifiedTokens } from "../../src/auth/verified-tokens";

const NOW = 1_000_000;
const principal = (expiresAt?: number): Principal => ({
  tenantId: "acme",
  subject: "u",
  scopes: ["sessions:read"],
  via: "jwt",
  ...(expiresAt === undefined ? {} : { expiresAt }),
});

describe("VerifiedTokens", () => {
  it("keeps a token until its expiry, and five minutes at most", () => {
    const tokens = new VerifiedTokens();
    tokens.put("soon", principal(NOW + 1_000), NOW);
    tokens.put("later", principal(NOW + 3_600_000), NOW);
    expect(tokens.get("soon", NOW + 999)).toMatchObject({ tenantId: "acme" });
    expect(tokens.get("soon", NOW + 1_000)).toBeNull();
    expect(tokens.get("later", NOW + MAX_KEPT_MS - 1)).not.toBeNull();
    expect(tokens.get("later", NOW + MAX_KEPT_MS)).toBeNull();
  });

  it("keeps no token without an expiry or already expired, and none for a time before it was verified", () => {
    const tokens = new VerifiedTokens();
    tokens.put("forever", principal(), NOW);
    tokens.put("gone", principal(NOW), NOW);
    tokens.put("fine", principal(NOW + 60_000), NOW);
    expect(tokens.get("forever", NOW)).toBeNull();
    expect(tokens.get("gone", NOW)).toBeNull();
    expect(tokens.get("fine", NOW - 1)).toBeNull();
    expect(tokens.size).toBe(1);
  });

  it("drops the oldest past its bound", () => {
    const tokens = new VerifiedTokens();
    for (let i = 0; i <= MAX_TOKENS; i++) tokens.put(`t${i}`, principal(NOW + 60_000), NOW);
    expect(tokens.size).toBe(MAX_TOKENS);
    expect(tokens.get("t0", NOW)).toBeNull();
    expect(tokens.get(`t${MAX_TOKENS}`, NOW)).not.toBeNull();
  });
});
