/**
 * The MCP batch attack: one tenant sends `/v1/mcp` JSON-RPC batches of `notifications/cancelled`,
 * two requests at a time, at its own request rate. A batch past `MAX_MCP_BATCH_MESSAGES` is a 413
 * problem; a batch within it costs one lookup in the tenant's index per request, so another
 * tenant's requests keep their pace. Once, 1,000 cancellations a request woke 1,000 session
 * objects that never existed, and another tenant waited up to 66 s.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_DEFAULT_LIMITS, MAX_MCP_BATCH_MESSAGES } from "../../src/limits";
import { calibrate, expectWithinCalibration, timedWhile } from "./support/bystander";
import { type SharedStack, sharedStack, uniqueName } from "./support/stack";
import { tokenMinter } from "./support/tokens";

const ATTACK_MS = 15_000;
const IN_FLIGHT = 2;
const OVERSIZED = 1_000;

describe("one tenant's batches of MCP cancellations", () => {
  let stack: SharedStack;

  beforeAll(async () => {
    stack = await sharedStack();
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  it("are bounded per batch and cheap per message, and do not slow another tenant", async () => {
    const tenantId = uniqueName("mcp-attacker");
    const ops = await stack.client("platform", "e2e-ops", ["platform:admin"]);
    // The attacker has the platform's default request rate, as a tenant would.
    await ops.expect(200, "PUT", `/v1/admin/tenants/${tenantId}/limits`, {
      requests_per_minute: BUILTIN_DEFAULT_LIMITS.requests_per_minute,
      caller_share_percent: 99,
    });
    const token = await (
      await tokenMinter(stack.platform.signingKey)
    )({ tenantId, subject: "e2e-user", scopes: ["sessions:read", "sessions:write"] });
    const bystander = await stack.client(uniqueName("bystander"));
    const headers = {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": "mcp_" + "A".repeat(22),
    };
    let nextId = 0;
    const batch = (size: number) =>
      Array.from({ length: size }, () => ({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: nextId++, reason: "never mind" },
      }));
    const post = (body: unknown) =>
      fetch(`${stack.platform.url}/v1/mcp`, { method: "POST", headers, body: JSON.stringify(body), signal: AbortSignal.timeout(120_000) });

    const calibration = await calibrate(bystander);
    const statuses = new Map<number, number>();
    const problems: unknown[] = [];
    const latencies = await timedWhile(bystander, async () => {
      const until = Date.now() + ATTACK_MS;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async (_, lane) => {
          for (let i = 0; Date.now() < until; i++) {
            // One lane sends what the limit refuses, the other what it takes, in turns.
            const res = await post(batch((i + lane) % 2 === 0 ? OVERSIZED : MAX_MCP_BATCH_MESSAGES)).catch(() => null);
            const status = res?.status ?? 0;
            statuses.set(status, (statuses.get(status) ?? 0) + 1);
            if (status === 413 && problems.length === 0) problems.push({ type: res?.headers.get("content-type"), body: await res?.json() });
            else await res?.body?.cancel();
          }
        }),
      );
    });

    console.log("attacker's answers by status", Object.fromEntries(statuses));
    expectWithinCalibration(latencies, calibration);
    expect(statuses.get(202) ?? 0, stack.logs()).toBeGreaterThan(0);
    expect(statuses.get(413) ?? 0).toBeGreaterThan(0);
    expect([...statuses.keys()].every((status) => [202, 413, 429].includes(status))).toBe(true);
    expect(problems[0]).toMatchObject({
      type: "application/problem+json",
      body: {
        code: "payload_too_large",
        detail: `A JSON-RPC batch holds at most ${MAX_MCP_BATCH_MESSAGES} messages; this one holds ${OVERSIZED}.`,
      },
    });
  });
});
