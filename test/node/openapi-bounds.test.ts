import { describe, expect, it } from "vitest";
import { readDocument, requestSchemaProblems, spectralFindings } from "../../scripts/openapi-bounds.mjs";

describe("openapi/openapi.json: request bounds", () => {
  it("states a bound for every string, array, integer and map a request carries", async () => {
    expect(requestSchemaProblems(await readDocument())).toEqual([]);
  });

  it("passes Spectral's OWASP size-limit rules (.spectral.yaml) on the request side, and on the text of a session's history", async () => {
    const { request, responses } = await spectralFindings(await readDocument());
    expect(request).toEqual([]);
    // A message's text, the one string every history holds, states the most a saved message holds.
    expect(responses.filter((finding) => finding.includes("components/schemas/TextBlock/"))).toEqual([]);
  }, 120_000);
});
