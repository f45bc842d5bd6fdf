import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { readSigningSecret, rotateWebhookSecret, signingSecrets, WEBHOOK_SECRET_GRACE_MS } from "../../src/tenants/signing-secret";
import { INDEX_LAYOUT_V0, writeLegacyIndex } from "../support/legacy-storage";
import { freshTenant, indexOf } from "./helpers";

const SECRET_SHAPE = /^whsec_[A-Za-z0-9_-]{43}$/;

describe("webhook secret", () => {
  it("is made on first read and stays the same on later reads", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    const first = await index.getWebhookSecret(tenantId);
    expect(first.secret).toMatch(SECRET_SHAPE);
    expect(Date.parse(first.created_at)).toBeGreaterThan(0);
    expect(first.previous_expires_at).toBeNull();
    expect(await index.getWebhookSecret(tenantId)).toEqual(first);
  });

  it("changes on rotation, and reads return the new one with the old one's expiry", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    const before = await index.getWebhookSecret(tenantId);
    const rotated = await index.rotateWebhookSecret(tenantId);
    expect(rotated.secret).toMatch(SECRET_SHAPE);
    expect(rotated.secret).not.toBe(before.secret);
    expect(rotated.previous_expires_at).not.toBeNull();
    expect(await index.getWebhookSecret(tenantId)).toEqual(rotated);
    expect((await index.getCallSigning(tenantId)).secrets).toEqual([rotated.secret, before.secret]);
  });

  it("differs between tenants", async () => {
    const a = freshTenant();
    const b = freshTenant();
    expect((await indexOf(a).getWebhookSecret(a)).secret).not.toBe((await indexOf(b).getWebhookSecret(b)).secret);
  });
});

describe("the grace period of a replaced secret", () => {
  const T0 = Date.UTC(2030, 0, 1);

  it(`signs with both secrets for ${WEBHOOK_SECRET_GRACE_MS / 3_600_000} h after a rotation, then with the new one only`, async () => {
    const tenantId = freshTenant();
    await indexOf(tenantId).counts(tenantId); // enters the tenant
    await runInDurableObject(indexOf(tenantId), async (_instance, state) => {
      const kv = state.storage.kv;
      const old = readSigningSecret(kv, T0).secret;
      const fresh = rotateWebhookSecret(kv, T0 + 1000);
      expect(fresh.previous_expires_at).toBe(new Date(T0 + 1000 + WEBHOOK_SECRET_GRACE_MS).toISOString());
      expect(signingSecrets(kv, T0 + 1000 + WEBHOOK_SECRET_GRACE_MS - 1)).toEqual([fresh.secret, old]);
      expect(signingSecrets(kv, T0 + 1000 + WEBHOOK_SECRET_GRACE_MS)).toEqual([fresh.secret]);
      expect(readSigningSecret(kv, T0 + 1000 + WEBHOOK_SECRET_GRACE_MS).previous_expires_at).toBeNull();
    });
  });

  it("keeps at most two secrets: rotating again ends the older one's grace at once", async () => {
    const tenantId = freshTenant();
    await indexOf(tenantId).counts(tenantId);
    await runInDurableObject(indexOf(tenantId), async (_instance, state) => {
      const kv = state.storage.kv;
      readSigningSecret(kv, T0);
      const second = rotateWebhookSecret(kv, T0 + 1);
      const third = rotateWebhookSecret(kv, T0 + 2);
      expect(signingSecrets(kv, T0 + 3)).toEqual([third.secret, second.secret]);
    });
  });

  it("works on storage written before secrets had a grace period", async () => {
    const tenantId = freshTenant();
    const legacySecret = { secret: `whsec_${"L".repeat(43)}`, created_at: "2025-01-01T00:00:00.000Z" };
    await runInDurableObject(indexOf(tenantId), async (_instance, state) => {
      writeLegacyIndex(state.storage, tenantId, INDEX_LAYOUT_V0);
      state.storage.kv.put("webhook_secret", legacySecret); // the shape the previous version wrote
    });
    await abortAllDurableObjects();
    const index = indexOf(tenantId);
    expect(await index.getWebhookSecret(tenantId)).toEqual({ ...legacySecret, previous_expires_at: null });
    expect(await index.getCallSigning(tenantId)).toEqual({ secrets: [legacySecret.secret], webhook_origins: null });
    const rotated = await index.rotateWebhookSecret(tenantId);
    expect((await index.getCallSigning(tenantId)).secrets).toEqual([rotated.secret, legacySecret.secret]);
  });
});
