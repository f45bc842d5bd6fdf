/**
 * The JSON Schema validator the MCP SDK's client is given instead of its default (Ajv), which
 * compiles every schema with `new Function`: Workers forbid that, and a server's schema is
 * untrusted input. This one is the platform's (src/shared/json-schema), whose patterns run on RE2 in
 * linear time. The SDK asks it to check a tool's structured output against the tool's
 * `outputSchema`.
 */
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { validateJson } from "./validator";

export class PlatformJsonSchemaValidator implements jsonSchemaValidator {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    // Nothing is compiled here: the schema is checked (and its patterns compiled, cached) on use.
    return (input) => {
      const result = validateJson(schema as Record<string, unknown>, input);
      if (result.valid) return { valid: true, data: input as T, errorMessage: undefined };
      const message = result.unusable !== null ? `the schema cannot be used: ${result.unusable}` : result.errors.join("; ");
      return { valid: false, data: undefined, errorMessage: message };
    };
  }
}
