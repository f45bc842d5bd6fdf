/**
 * The OpenAPI document of the full gateway, built without serving a request: for
 * `npm run openapi`, which writes it to openapi/openapi.json.
 */
import { createApp } from "./app";
import { openApiDocument, type OpenApiDocument } from "./openapi";

export function buildOpenApiDocument(): OpenApiDocument {
  return openApiDocument(createApp());
}

/** The committed file's exact text: stable key order as generated, two-space indent, final newline. */
export function serializeOpenApiDocument(document: OpenApiDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
