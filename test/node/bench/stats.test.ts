import { describe, expect, it } from "vitest";
import { gapsBetweenModelCalls, stepDurations, toolSteps } from "../../../bench/support/model-script";
import { fmtSpread, median, pairedRatio, quantile, ratio, spread } from "../../../bench/support/stats";

describe("bench statistics", () => {
  it("interpolates quantiles between neighbours", () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([10, 0, 20], 0)).toBe(0);
    expect(quantile([10, 0, 20], 1)).toBe(20);
    expect(quantile([0, 100], 0.95)).toBeCloseTo(95);
    expect(quantile([], 0.5)).toBeNaN();
  });

  it("summarises repetitions as the median and the range", () => {
    expect(spread([3, 1, 2])).toEqual({ median: 2, min: 1, max: 3, n: 3 });
    expect(fmtSpread(spread([3, 1, 2]))).toBe("2.0 (1.0–3.0)");
    expect(fmtSpread(spread([4]))).toBe("4.0");
    expect(fmtSpread(spread([]))).toBe("n/a");
  });

  it("prints ratios of medians", () => {
    expect(ratio(median([30, 29, 28]), 16)).toBe("1.81×");
    expect(ratio(1, 0)).toBe("n/a");
  });
});

describe("bench model script and timeline", () => {
  it("asks for get_time once per step with unique ids, then answers", () => {
    const steps = toolSteps(3);
    expect(steps).toHaveLength(4);
    const ids = steps.slice(0, 3).map((s) => ("reply" in s ? (s.reply.content[0] as { id: string }).id : null));
    expect(new Set(ids).size).toBe(3);
    expect(steps[3]).toEqual({ reply: { content: [{ type: "text", text: "done" }] } });
  });

  it("measures gaps from each answer to the next call, and steps from call to call", () => {
    const timeline = { arrivals: [100, 130, 170], answers: [105, 133, 172] };
    expect(gapsBetweenModelCalls(timeline)).toEqual([25, 37]);
    expect(stepDurations(timeline)).toEqual([30, 40]);
  });
});

describe("bench paired ratios", () => {
  it("divides run by run, then takes the median and the range", () => {
    expect(pairedRatio([20, 40, 30], [10, 10, 10])).toBe("3.00× (2.00–4.00)");
    expect(pairedRatio([20], [10])).toBe("2.00×");
    expect(pairedRatio([1], [0])).toBe("n/a");
  });
});
