/**
 * The rate windows a request is counted in (src/tenants/admission.ts), on the tenant's index
 * with a fixed clock: each caller's share of the tenant's window, the admin lane of the paths
 * that stop abuse, and schedule firings counted apart from interactive requests.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ApiKeyRecord } from "../../src/auth/api-keys";
import { ADMIN_REQUESTS_PER_MINUTE } from "../../src/limits";
import { openGate } from "../../src/schedules/fire";
import { RATE_WINDOW_MS } from "../../src/tenants/rate-limit";
import type { AdmitRequestInput } from "../../src/tenants/types";
import { issuedKey } from "../support/api-keys";
import { freshTenant, indexOf } from "./helpers";

/** The start of a one-minute window. */
const WINDOW = Math.floor(Date.UTC(2030, 2, 10, 12, 0, 0) / RATE_WINDOW_MS) * RATE_WINDOW_MS;

/** A tenant with `requests_per_minute` 10, so each caller's share (50% by default) is 5. */
async function tenantOfTen(): Promise<{ tenantId: string; admit: (input: Omit<AdmitRequestInput, "now">) => Promise<boolean> }> {
  const tenantId = freshTenant();
  const index = indexOf(tenantId);
  await index.setLimitOverrides(tenantId, { requests_per_minute: 10 });
  return { tenantId, admit: async (input) => (await index.admitRequest(tenantId, { ...input, now: WINDOW + 1_000 })).ok };
}

async function admitted(times: number, admit: () => Promise<boolean>): Promise<number> {
  let count = 0;
  for (let i = 0; i < times; i++) if (await admit()) count += 1;
  return count;
}

describe("a caller's share of the tenant's window", () => {
  it("stops one flooding key at its share, and the others keep the rest of the window", async () => {
    const { admit } = await tenantOfTen();
    expect(await admitted(20, () => admit({ bucket: "key:flood" }))).toBe(5);
    expect(await admit({ bucket: "key:other" })).toBe(true);
    expect(await admit({ bucket: "sub:admin", scopes: ["tenant:admin"] })).toBe(true);
  });

  it("follows caller_share_percent, and a JWT subject is a caller like a key", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.setLimitOverrides(tenantId, { requests_per_minute: 10, caller_share_percent: 20 });
    const admit = async (bucket: string) => (await index.admitRequest(tenantId, { bucket, now: WINDOW })).ok;
    expect(await admitted(10, () => admit("sub:user-1"))).toBe(2);
    expect(await admitted(10, () => admit("sub:user-2"))).toBe(2);
    const refused = await index.admitRequest(tenantId, { bucket: "sub:user-1", now: WINDOW });
    expect(refused).toMatchObject({ ok: false, code: "rate_limited", rate: { current: { name: "caller", remaining: 0 } } });
  });
});

describe("the admins' reserve of the tenant's window", () => {
  it("is left to the admins when other callers flood together, and admins still draw on the whole window", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.setLimitOverrides(tenantId, { requests_per_minute: 100 });
    const admit = async (input: Omit<AdmitRequestInput, "now">) => (await index.admitRequest(tenantId, { ...input, now: WINDOW })).ok;
    expect(await admitted(60, () => admit({ bucket: "key:a" }))).toBe(50);
    expect(await admitted(60, () => admit({ bucket: "key:b" }))).toBe(40);
    expect(await admit({ bucket: "key:c" })).toBe(false);
    // An end user's token never holds tenant:admin; were it to claim it, it is no admin here.
    expect(await admit({ bucket: "sub:end_user:x", endUser: "x", scopes: ["tenant:admin"] })).toBe(false);
    expect(await admitted(20, () => admit({ bucket: "sub:admin", scopes: ["tenant:admin"] }))).toBe(10);
    expect(await admit({ bucket: "sub:root", scopes: ["platform:admin"] })).toBe(false);

    // Alone, an admin has the whole window (up to its own share).
    const other = freshTenant();
    const own = indexOf(other);
    await own.setLimitOverrides(other, { requests_per_minute: 100, caller_share_percent: 99 });
    expect(
      await admitted(120, async () => (await own.admitRequest(other, { bucket: "sub:admin", scopes: ["tenant:admin"], now: WINDOW })).ok),
    ).toBe(99);
  });
});

describe("an end user's share", () => {
  it("is end_user_requests_per_minute at most, so a few end users cannot take the window from the backend and the others", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.setLimitOverrides(tenantId, { requests_per_minute: 20, end_user_requests_per_minute: 3 });
    const admit = async (input: Omit<AdmitRequestInput, "now">) => (await index.admitRequest(tenantId, { ...input, now: WINDOW })).ok;
    expect(await admitted(20, () => admit({ bucket: "sub:end_user:mallory", endUser: "mallory" }))).toBe(3);
    const refused = await index.admitRequest(tenantId, { bucket: "sub:end_user:mallory", endUser: "mallory", now: WINDOW });
    expect(refused).toMatchObject({ ok: false, code: "rate_limited", rate: { current: { name: "end-user", remaining: 0 } } });
    expect(await admitted(20, () => admit({ bucket: "sub:end_user:eve", endUser: "eve" }))).toBe(3);
    // The backend keeps its own share (half of 20), not what two end users left of it.
    expect(await admitted(20, () => admit({ bucket: "key:backend" }))).toBe(10);
  });

  it("is never more than the caller share a key gets", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.setLimitOverrides(tenantId, { requests_per_minute: 10, end_user_requests_per_minute: 1_000 });
    expect(
      await admitted(20, async () => (await index.admitRequest(tenantId, { bucket: "sub:end_user:a", endUser: "a", now: WINDOW })).ok),
    ).toBe(5);
  });
});

describe("the admin lane", () => {
  it("admits an admin's key management and a platform admin's suspension while the tenant's window is full", async () => {
    const { admit } = await tenantOfTen();
    expect(await admitted(5, () => admit({ bucket: "key:a" }))).toBe(5);
    expect(await admitted(5, () => admit({ bucket: "key:b" }))).toBe(4);
    // The admins' reserve of the tenant's window (1 of 10), then nothing.
    expect(await admitted(2, () => admit({ bucket: "sub:admin", scopes: ["tenant:admin"] }))).toBe(1);

    expect(await admit({ bucket: "sub:admin", scopes: ["tenant:admin"], kind: "key_management" })).toBe(true);
    expect(await admit({ bucket: "sub:root", scopes: ["platform:admin"], kind: "suspension" })).toBe(true);
    expect(await admit({ bucket: "sub:root", scopes: ["platform:admin"], kind: "key_management" })).toBe(true);
    // The lane is the admins' only: anyone else on those paths is counted as any request.
    expect(await admit({ bucket: "key:reader", scopes: ["sessions:read"], kind: "key_management" })).toBe(false);
    expect(await admit({ bucket: "sub:admin", scopes: ["tenant:admin"], kind: "suspension" })).toBe(false);
  });

  it("reads an API key's scopes from its record, and stops each admin at the floor", async () => {
    const { tenantId, admit } = await tenantOfTen();
    const index = indexOf(tenantId);
    const key = await issuedKey(tenantId);
    const record: ApiKeyRecord = {
      key_id: key.keyId,
      tenant_id: tenantId,
      name: "admin key",
      scopes: ["tenant:admin"],
      hash: key.hash,
      created_by: "admin-1",
      created_at: new Date(WINDOW).toISOString(),
      expires_at: null,
      revoked_at: null,
      last_used_at: null,
    };
    await index.createApiKey(tenantId, record);
    expect(await admitted(10, () => admit({ bucket: "key:flood" }))).toBe(5);
    expect(await admitted(10, () => admit({ bucket: "key:other" }))).toBe(4);

    const input = { secretHash: key.hash, bucket: `key:${key.keyId}`, now: WINDOW + 1_000, kind: "key_management" as const };
    const first = await index.admitApiKey(tenantId, key.keyId, input);
    expect(first.admission).toMatchObject({
      ok: true,
      rate: { policies: [{ name: "admin", quota: ADMIN_REQUESTS_PER_MINUTE, windowSeconds: 60 }] },
    });
    let more = 0;
    for (let i = 0; i < ADMIN_REQUESTS_PER_MINUTE; i++) if ((await index.admitApiKey(tenantId, key.keyId, input)).admission?.ok) more += 1;
    expect(more).toBe(ADMIN_REQUESTS_PER_MINUTE - 1);
  });
});

describe("schedule firings", () => {
  it("are counted apart from interactive requests, in both directions, and per creator", async () => {
    const { tenantId, admit } = await tenantOfTen();
    const fire = async (subject: string) =>
      (
        await openGate(
          env,
          tenantId,
          { subject, scopes: ["sessions:read", "sessions:write"], via: "jwt", key_id: null, expires_at: null },
          WINDOW + 1_000,
        )
      ).kind;

    // A creator's schedules firing many times a second stop at its share of the schedules' window...
    const kinds: string[] = [];
    for (let i = 0; i < 8; i++) kinds.push(await fire("busy"));
    expect(kinds.filter((kind) => kind === "go")).toHaveLength(5);
    expect(kinds.at(-1)).toBe("refused");
    // ...and leave the interactive window of that very creator untouched, and other creators' schedules going.
    expect(await admitted(5, () => admit({ bucket: "sub:busy" }))).toBe(5);
    expect(await fire("quiet")).toBe("go");
    // Interactive requests filling the tenant's window (all but the admins' reserve) do not stop the schedules either.
    expect(await admitted(5, () => admit({ bucket: "sub:caller" }))).toBe(4);
    expect(await admit({ bucket: "sub:third" })).toBe(false);
    expect(await fire("third")).toBe("go");
  });
});
