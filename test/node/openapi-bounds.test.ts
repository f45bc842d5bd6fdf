import { describe, expect, it } from "vitest";
import { readDocument, requestSchemaProblems, spectralFindings } from "../../scripts/openapi-bounds.mjs";

describe("openapi/openapi.json: request bounds", () => {
  it("states a bound for every string, array, integer and map a request carries", async () => {
    expect(requestSchemaProblems(await readDocument())).toEqual([]);
  });

  it("passes Spectral's OWASP size-limit rules (.spectral.yaml) on the request side", async () => {
    const { request } = await spectralFindings(await readDocument());
    expect(request).toEqual([]);
  }, 120_000);
});
