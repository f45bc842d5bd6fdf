/** How the console tells a decided tool call: who approved or denied it, or that its approval expired. */
import { describe, expect, it } from "vitest";
import { decisionLabel } from "../../../console/src/format";

describe("decisionLabel", () => {
  it("names who approved or denied, says an expiry by its decision, and nothing for an undecided call", () => {
    expect(decisionLabel({ decision: "approved", decided_by: "alice" })).toEqual({ term: "Approved by", detail: "alice" });
    expect(decisionLabel({ decision: "denied", decided_by: "key:key_abc" })).toEqual({ term: "Denied by", detail: "key:key_abc" });
    expect(decisionLabel({ decision: "expired", decided_by: "system" })).toEqual({ term: "Expired", detail: "not approved in time" });
    // A person whose token says `system` is still a person: only the decision tells an expiry.
    expect(decisionLabel({ decision: "approved", decided_by: "system" })).toEqual({ term: "Approved by", detail: "system" });
    expect(decisionLabel({ decision: null, decided_by: null })).toBeNull();
    expect(decisionLabel({})).toBeNull();
  });
});
