import { describe, expect, it } from "vitest";
import committed from "../../openapi/openapi.json";
import { PROBLEM_CONTENT_TYPE } from "../../src/api/errors";
import { call } from "../support/api";

type Operation = {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  requestBody?: { required?: boolean; content: Record<string, unknown> };
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
};
type Document = { tags: { name: string }[]; paths: Record<string, Record<string, Operation>> };

async function servedDocument(): Promise<Document> {
  return (await (await call("/openapi.json")).json()) as Document;
}

function operations(doc: Document): [string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]): [string, Operation] => [`${method.toUpperCase()} ${path}`, op]));
}

describe("openapi/openapi.json", () => {
  it("matches the document the code generates (run `npm run openapi` after changing routes)", async () => {
    expect(await servedDocument()).toEqual(committed);
  });
});

describe("OpenAPI hygiene", () => {
  it("gives every operation a unique camelCase operationId, a summary and a known tag", async () => {
    const doc = await servedDocument();
    const tagNames = new Set(doc.tags.map((tag) => tag.name));
    const ids = new Set<string>();
    for (const [name, op] of operations(doc)) {
      expect(op.operationId, name).toMatch(/^[a-z][a-zA-Z0-9]+$/);
      expect(ids.has(op.operationId!), `${name} repeats ${op.operationId}`).toBe(false);
      ids.add(op.operationId!);
      expect(op.summary, name).toBeTruthy();
      expect(op.tags?.length, name).toBeGreaterThan(0);
      for (const tag of op.tags ?? []) expect(tagNames.has(tag), `${name}: ${tag}`).toBe(true);
    }
  });

  it("declares security on every operation and documents 401 wherever credentials are needed", async () => {
    for (const [name, op] of operations(await servedDocument())) {
      expect(Array.isArray(op.security), name).toBe(true);
      if (op.security!.length > 0) {
        expect(Object.keys(op.responses), name).toEqual(expect.arrayContaining(["400", "401", "403", "429", "500"]));
      }
      expect(Object.keys(op.responses), name).toContain("500");
    }
  });

  it("documents every error response as a Problem", async () => {
    for (const [name, op] of operations(await servedDocument())) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        expect(response.content?.[PROBLEM_CONTENT_TYPE]?.schema?.$ref, `${name} ${status}`).toBe("#/components/schemas/Problem");
      }
    }
  });

  // A deny needs nothing but the call id: a bare POST denies without a reason, on purpose.
  const OPTIONAL_BODIES = new Set(["POST /v1/sessions/{id}/tool-calls/{call_id}/deny"]);

  it("marks every request body as required, except the listed optional ones", async () => {
    for (const [name, op] of operations(await servedDocument())) {
      if (op.requestBody) expect(op.requestBody.required, name).toBe(!OPTIONAL_BODIES.has(name));
    }
  });
});
