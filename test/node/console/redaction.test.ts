/** The console's redaction form: what a save sends for each combination of ticks. */
import { describe, expect, it } from "vitest";
import { DETECTORS, redactionChoice, TARGETS } from "../../../console/src/redaction";
import { redactionDetectorValues, redactionTargetValues } from "../../../sdk/src/generated/openapi";

describe("the redaction form's choice", () => {
  it("offers every detector and target the API knows", () => {
    expect(DETECTORS.map((d) => d.value)).toEqual(redactionDetectorValues);
    expect(TARGETS.map((t) => t.value)).toEqual(redactionTargetValues);
  });

  it("is null with nothing ticked, and the setting in the API's order with both lists ticked", () => {
    expect(redactionChoice([], [])).toEqual({ ok: true, redaction: null });
    expect(redactionChoice(["secret", "email"], ["model_output", "user_input"])).toEqual({
      ok: true,
      redaction: { detectors: ["email", "secret"], apply_to: ["user_input", "model_output"] },
    });
  });

  it("says what is missing when only one list is ticked", () => {
    expect(redactionChoice(["email"], [])).toMatchObject({ ok: false, error: expect.stringContaining("where") });
    expect(redactionChoice([], ["tool_output"])).toMatchObject({ ok: false, error: expect.stringContaining("what") });
  });
});
