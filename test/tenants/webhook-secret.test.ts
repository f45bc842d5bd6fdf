import { describe, expect, it } from "vitest";
import { freshTenant, indexOf } from "./helpers";

const SECRET_SHAPE = /^whsec_[A-Za-z0-9_-]{43}$/;

describe("webhook secret", () => {
  it("is made on first read and stays the same on later reads", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    const first = await index.getWebhookSecret(tenantId);
    expect(first.secret).toMatch(SECRET_SHAPE);
    expect(Date.parse(first.created_at)).toBeGreaterThan(0);
    expect(await index.getWebhookSecret(tenantId)).toEqual(first);
  });

  it("changes on rotation, and reads return the new one", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    const before = await index.getWebhookSecret(tenantId);
    const rotated = await index.rotateWebhookSecret(tenantId);
    expect(rotated.secret).toMatch(SECRET_SHAPE);
    expect(rotated.secret).not.toBe(before.secret);
    expect(await index.getWebhookSecret(tenantId)).toEqual(rotated);
  });

  it("differs between tenants", async () => {
    const a = freshTenant();
    const b = freshTenant();
    expect((await indexOf(a).getWebhookSecret(a)).secret).not.toBe((await indexOf(b).getWebhookSecret(b)).secret);
  });
});
