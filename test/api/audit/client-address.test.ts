/**
 * The client address an audit entry records: read only from the header the deployment trusts
 * (`TRUSTED_CLIENT_IP_HEADER`), never from one a client may set where none is trusted, as under
 * a local runtime (this one).
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/api/app";
import { AuthGuard } from "../../../src/api/auth-guard";
import type { AuditEntry } from "../../../src/audit/types";
import type { Env } from "../../../src/env";
import { BASE_URL } from "../../support/api";
import { freshTenant } from "../../support/tokens";
import { caller } from "../sessions/helpers";
import { tenantLog } from "./helpers";

/** Rotates the webhook secret through a gateway with `vars` over the test bindings; the entry it leaves. */
async function rotateThrough(vars: Partial<Env>, headers: Record<string, string>): Promise<AuditEntry> {
  const admin = await caller(freshTenant("audit-ip"), ["tenant:admin"], "admin-1");
  const ctx = createExecutionContext();
  const res = await createApp({ authGuard: new AuthGuard() }).request(
    `${BASE_URL}/v1/tenant/webhook-secret`,
    { method: "POST", headers: { ...admin.headers, ...headers } },
    { ...env, ...vars },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  expect(res.status).toBe(200);
  const [entry] = await tenantLog(admin.headers, "&action=webhook_secret.rotated");
  return entry!;
}

const SPOOFED = { "CF-Connecting-IP": "203.0.113.7", "X-Forwarded-For": "198.51.100.9", "X-Real-IP": "192.0.2.1" };

describe("the client address of an audit entry", () => {
  it("is none under a local runtime, whatever header the client sends", async () => {
    expect((await rotateThrough({}, SPOOFED)).client_ip).toBeNull();
  });

  it("comes from Cloudflare's header where it is trusted, and from no other", async () => {
    expect((await rotateThrough({ TRUSTED_CLIENT_IP_HEADER: "CF-Connecting-IP" }, SPOOFED)).client_ip).toBe("203.0.113.7");
  });

  it("comes from the header a deployment's own proxy sets, and the last entry of a list", async () => {
    expect((await rotateThrough({ TRUSTED_CLIENT_IP_HEADER: "X-Real-IP" }, SPOOFED)).client_ip).toBe("192.0.2.1");
    const forwarded = { "X-Forwarded-For": "10.0.0.1, 2001:DB8::7" };
    expect((await rotateThrough({ TRUSTED_CLIENT_IP_HEADER: "X-Forwarded-For" }, forwarded)).client_ip).toBe("2001:db8::7");
  });

  it("is none when the trusted header holds no address, and with none trusted", async () => {
    expect(
      (await rotateThrough({ TRUSTED_CLIENT_IP_HEADER: "CF-Connecting-IP" }, { "CF-Connecting-IP": "localhost" })).client_ip,
    ).toBeNull();
    expect((await rotateThrough({ TRUSTED_CLIENT_IP_HEADER: "none" }, SPOOFED)).client_ip).toBeNull();
  });
});
