/**
 * The stream flood: one tenant opens event streams as fast as it can, on one session and across
 * several. Past `max_streams_per_session` and `max_streams_per_tenant` each is a 429 problem and
 * holds nothing, and another tenant's requests keep answering at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_DEFAULT_LIMITS } from "../../src/limits";
import { expectPrompt, timedWhile } from "./support/bystander";
import { type SharedStack, sharedStack, uniqueName } from "./support/stack";
import { tokenMinter } from "./support/tokens";

const PER_SESSION = BUILTIN_DEFAULT_LIMITS.max_streams_per_session;
const PER_TENANT = 30;
const ATTEMPTS_PER_SESSION = 60;
const CONCURRENCY = 10;

describe("one tenant's flood of event streams", () => {
  let stack: SharedStack;

  beforeAll(async () => {
    stack = await sharedStack();
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  it("is capped per session and per tenant with 429s, and does not slow another tenant", async () => {
    const tenantId = uniqueName("flooder");
    const attacker = await stack.client(tenantId);
    const ops = await stack.client("platform", "e2e-ops", ["platform:admin"]);
    await ops.expect(200, "PUT", `/v1/admin/tenants/${tenantId}/limits`, { max_streams_per_tenant: PER_TENANT });
    const token = await (await tokenMinter(stack.platform.signingKey))({ tenantId, subject: "e2e-user", scopes: ["sessions:read"] });
    const sessions = [await attacker.createSession({}), await attacker.createSession({})];
    const bystander = await stack.client(uniqueName("bystander"));

    const open: Response[] = [];
    const refused: { status: number; retryAfter: string | null; detail: string }[] = [];
    let latencies: number[] = [];
    try {
      latencies = await timedWhile(bystander, async () => {
        for (const session of sessions) {
          let next = 0;
          await Promise.all(
            Array.from({ length: CONCURRENCY }, async () => {
              while (next < ATTEMPTS_PER_SESSION) {
                next += 1;
                const res = await fetch(`${stack.platform.url}/v1/sessions/${session.id}/events`, {
                  headers: { Authorization: `Bearer ${token}`, Accept: "text/event-stream" },
                });
                if (res.status === 200) open.push(res);
                else
                  refused.push({
                    status: res.status,
                    retryAfter: res.headers.get("Retry-After"),
                    detail: ((await res.json()) as { detail: string }).detail,
                  });
              }
            }),
          );
        }
      });
    } finally {
      for (const res of open) await res.body?.cancel().catch(() => undefined);
    }

    // The first session fills to its cap; the second to what the tenant has left.
    expect(open.length, stack.logs()).toBe(PER_TENANT);
    expect(refused).toHaveLength(2 * ATTEMPTS_PER_SESSION - PER_TENANT);
    expect(refused.every((r) => r.status === 429)).toBe(true);
    expect(refused.filter((r) => r.detail.includes("max_streams_per_session"))).toHaveLength(ATTEMPTS_PER_SESSION - PER_SESSION);
    const tenantWide = refused.filter((r) => r.detail.includes("max_streams_per_tenant"));
    expect(tenantWide).toHaveLength(ATTEMPTS_PER_SESSION - (PER_TENANT - PER_SESSION));
    expect(tenantWide.every((r) => Number(r.retryAfter) >= 1)).toBe(true);

    expectPrompt(latencies);
  });
});
