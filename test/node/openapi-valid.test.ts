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

  it("writes every property and subschema as an object, never as the boolean schemas true and false, which orval's zod output fails on", async () => {
    const document = JSON.parse(await readFile(new URL("../../openapi/openapi.json", import.meta.url), "utf8")) as unknown;
    const booleans: string[] = [];
    // Where a keyword holds a schema, or a map or list of them (examples and enums hold values);
    // `additionalProperties: false` is the one boolean every generator reads.
    const SCHEMA_KEYWORDS = new Set(["items", "not", "propertyNames", "contains", "if", "then", "else", "unevaluatedItems"]);
    const SCHEMA_MAPS = new Set(["properties", "patternProperties", "schemas", "$defs", "dependentSchemas"]);
    const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
    const walk = (node: unknown, path: string): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${path}/${i}`));
      if (!node || typeof node !== "object") return;
      for (const [key, value] of Object.entries(node)) {
        if (key === "example" || key === "examples" || key === "enum" || key === "const" || key === "default") continue;
        const at = `${path}/${key}`;
        if (SCHEMA_KEYWORDS.has(key) && typeof value === "boolean") booleans.push(at);
        if (SCHEMA_MAPS.has(key) && value && typeof value === "object")
          for (const [name, schema] of Object.entries(value)) if (typeof schema === "boolean") booleans.push(`${at}/${name}`);
        if (SCHEMA_LISTS.has(key) && Array.isArray(value))
          value.forEach((schema, i) => typeof schema === "boolean" && booleans.push(`${at}/${i}`));
        if (key === "schema" && typeof value === "boolean") booleans.push(at);
        walk(value, at);
      }
    };
    walk(document, "#");
    expect(booleans).toEqual([]);
  });
});
