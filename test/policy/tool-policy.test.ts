/** judgeCalls when the tenant's index cannot answer: the unit fails and is retried, no call is judged unread. */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { judgeCalls } from "../../src/sessions/object/loop/tool-policy";

describe("judgeCalls", () => {
  it("throws, so the unit is retried with backoff, when the index fails and no copy is held: no deny, no allow", async () => {
    const failing = {
      idFromName: (name: string) => env.TENANT_INDEX.idFromName(name),
      get: () => ({
        currentPolicy: async () => {
          throw new Error("tenant index unavailable");
        },
      }),
    };
    const scope = {
      env: { ...env, TENANT_INDEX: failing },
      requireSession: () => ({ tenant_id: `t_${crypto.randomUUID()}`, id: "ses_1", created_by: "end_user:alice", metadata: {} }),
      toolbox: () => new Map(),
      store: { run: () => ({}) },
    } as unknown as Parameters<typeof judgeCalls>[0];
    await expect(judgeCalls(scope, [{ type: "tool_use", id: "toolu_1", name: "get_time", input: {} }])).rejects.toThrow(
      /tenant index unavailable/,
    );
  });
});
