/**
 * Stands in for `ajv` and `ajv-formats` in the Worker's bundle (wrangler.json `alias`). The MCP
 * SDK imports Ajv as its default validator, which compiles schemas with `new Function`: Workers
 * forbid that, and the platform gives the SDK its own validator instead (validator.ts). With this
 * stand-in the bundle carries none of Ajv, and a path that still tried to use it fails loudly.
 */
export default function unavailable(): never {
  throw new Error("Ajv is not part of this Worker: give the MCP SDK the platform's JSON Schema validator");
}
