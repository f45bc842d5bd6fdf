/**
 * A schema the validator could spend seconds on is refused when the session is created: a 400
 * naming the field, before any trial validation runs, never a 500 or a stall.
 */
import { describe, expect, it } from "vitest";
import { callJson, readProblem } from "../../support/api";
import { doublingChain } from "../../support/hostile-schemas";
import { caller } from "./helpers";

describe("a schema over the complexity budget", () => {
  it.each([
    ["output_schema", { output_schema: doublingChain(24) }, "body.output_schema.$defs.d"],
    [
      "a tool's input_schema",
      { tools: [{ type: "client", name: "t", description: "a tool", input_schema: doublingChain(24) }] },
      "body.tools.0.input_schema.$defs.d",
    ],
  ])("in %s is a 400 with the field path", async (_where, body, pathStart) => {
    const who = await caller();
    // Refused by the structural check before any validation runs (bench/work-bounds.ts times it).
    const res = await callJson("/v1/sessions", "POST", body, who.headers);
    expect(res.status).toBe(400);
    const problem = await readProblem(res);
    expect(problem.errors).toEqual([
      {
        path: expect.stringMatching(new RegExp(`^${pathStart.replaceAll(".", "\\.").replaceAll("$", "\\$")}\\d+$`)),
        message: expect.stringContaining("Too complex"),
      },
    ]);
  });
});
