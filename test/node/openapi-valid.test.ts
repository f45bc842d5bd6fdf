import { readFile } from "node:fs/promises";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";

describe("openapi/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const text = await readFile(new URL("../../openapi/openapi.json", import.meta.url), "utf8");
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(text) as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("is written as the generator writes it: two-space JSON with a final newline", async () => {
    const text = await readFile(new URL("../../openapi/openapi.json", import.meta.url), "utf8");
    expect(text).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
  });
});
