import { describe, expect, it } from "vitest";
import { BudgetWaitError, type PlatformClient, waitForFinalStatus, waitForStatus } from "../../sdk/src/index.ts";

/** A client whose session reads as each of `statuses` in turn, then as the last one for ever. */
function clientReading(...statuses: string[]): PlatformClient {
  let reads = 0;
  const GET = async () => {
    const status = statuses[Math.min(reads++, statuses.length - 1)];
    return { data: { id: "ses_1", status }, error: undefined, response: new Response(null, { status: 200 }) };
  };
  return { GET } as unknown as PlatformClient;
}

describe("the SDK's waits and a run waiting on a budget", () => {
  it("stop at waiting_budget with a BudgetWaitError instead of waiting until the timeout", async () => {
    const waiting = waitForFinalStatus(clientReading("running", "waiting_budget"), "ses_1", { intervalMs: 1, timeoutMs: 60_000 });
    await expect(waiting).rejects.toBeInstanceOf(BudgetWaitError);
    await expect(waiting).rejects.toMatchObject({ sessionId: "ses_1", session: { status: "waiting_budget" } });
  });

  it("wait through it when asked for it", async () => {
    const session = await waitForStatus(clientReading("running", "waiting_budget"), "ses_1", ["waiting_budget"], { intervalMs: 1 });
    expect(session.status).toBe("waiting_budget");
  });
});
