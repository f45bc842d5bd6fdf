/**
 * A tenant's sub-agent starts take their turns on the isolate (src/sessions/child-starts.ts): the
 * gap after each start (pure), and that one tenant's turn never holds another tenant's start.
 */
import { describe, expect, it } from "vitest";
import { inStartTurn, startGapMs } from "../../src/sessions/child-starts";
import { CHILD_START_SHARE, MAX_CHILD_STARTS_IN_FLIGHT } from "../../src/limits";

describe("a tenant's sub-agent starts", () => {
  it("leave the rest of the isolate's time to other work after each start", () => {
    expect(startGapMs(undefined, 1_000)).toBe(0);
    const last = { endedAt: 1_000, tookMs: 200 };
    const gap = (200 * (1 - CHILD_START_SHARE)) / CHILD_START_SHARE;
    expect(startGapMs(last, 1_000)).toBe(gap);
    expect(startGapMs(last, 1_000 + gap / 2)).toBe(gap / 2);
    expect(startGapMs(last, 1_000 + gap)).toBe(0);
    expect(startGapMs(last, 1_000, 1)).toBe(0);
  });

  it("take turns within a tenant, and never hold another tenant's", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const order: string[] = [];
    const first = Array.from({ length: MAX_CHILD_STARTS_IN_FLIGHT }, (_, i) =>
      inStartTurn("tenant-a", async () => {
        order.push(`a${i} started`);
        await held;
      }),
    );
    const waiting = inStartTurn("tenant-a", async () => void order.push("a waiting started"));
    // Another tenant starts while the first one's turns are all taken.
    await inStartTurn("tenant-b", async () => void order.push("b started"));
    expect(order).not.toContain("a waiting started");
    expect(order).toContain("b started");
    release();
    await Promise.all([...first, waiting]);
    expect(order.at(-1)).toBe("a waiting started");
  });
});
