import { describe, expect, it } from "vitest";
import committed from "../../openapi/openapi.json";
import { FINAL_STATUSES } from "../../src/session-config/types";
import { PROBLEM_CODES, PROBLEM_CONTENT_TYPE } from "../../src/api/errors";
import { call } from "../support/api";

type Operation = {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string }[];
  requestBody?: { required?: boolean; content: Record<string, { example?: unknown; schema?: { $ref?: string } }> };
  responses: Record<string, { headers?: Record<string, { $ref?: string }>; content?: Record<string, { schema?: { $ref?: string } }> }>;
};
type Schema = { enum?: string[]; required?: string[]; properties?: Record<string, unknown> };
type Document = {
  tags: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};

async function servedDocument(): Promise<Document> {
  return (await (await call("/openapi.json")).json()) as Document;
}

function operations(doc: Document): [string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]): [string, Operation] => [`${method.toUpperCase()} ${path}`, op]),
  );
}

describe("openapi/openapi.json", () => {
  // The first request builds the document in a cold isolate, which takes seconds on a busy machine.
  it("matches the document the code generates (run `npm run openapi` after changing routes)", async () => {
    expect(await servedDocument()).toEqual(committed);
  }, 30_000);
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

  it("documents RateLimit-Policy and RateLimit on every answer of an authenticated route but 401 and 503, 429 included, and on no public route", async () => {
    const rateRefs = {
      "RateLimit-Policy": { $ref: "#/components/headers/RateLimitPolicy" },
      RateLimit: { $ref: "#/components/headers/RateLimit" },
    };
    for (const [name, op] of operations(await servedDocument())) {
      for (const [status, response] of Object.entries(op.responses)) {
        const documented = op.security!.length > 0 && status !== "401" && status !== "503";
        if (documented) expect(response.headers, `${name} ${status}`).toMatchObject(rateRefs);
        else expect(Object.keys(response.headers ?? {}), `${name} ${status}`).not.toContain("RateLimit");
      }
      if (op.security!.length > 0)
        expect(op.responses["429"]?.headers, name).toMatchObject({ "Retry-After": expect.anything(), ...rateRefs });
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

describe("what generated clients rely on", () => {
  it("declares X-Request-Id on every response", async () => {
    for (const [name, op] of operations(await servedDocument())) {
      for (const [status, response] of Object.entries(op.responses)) {
        expect(response.headers?.["X-Request-Id"]?.$ref, `${name} ${status}`).toBe("#/components/headers/RequestId");
      }
    }
  });

  it("declares Idempotent-Replayed on the success answers of every route that takes an Idempotency-Key", async () => {
    const idempotent = operations(await servedDocument()).filter(([, op]) =>
      op.parameters?.some((p) => p.in === "header" && p.name === "idempotency-key"),
    );
    expect(idempotent.map(([name]) => name)).toEqual(expect.arrayContaining(["POST /v1/sessions", "POST /v1/sessions/{id}/messages"]));
    for (const [name, op] of idempotent) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 300) expect(response.headers?.["Idempotent-Replayed"], `${name} ${status}`).toBeDefined();
      }
    }
  });

  it("declares Retry-After on every 429 and 503, and Location on the created session", async () => {
    const doc = await servedDocument();
    for (const [name, op] of operations(doc)) {
      for (const status of ["429", "503"]) {
        if (op.responses[status]) expect(op.responses[status].headers?.["Retry-After"], `${name} ${status}`).toBeDefined();
      }
    }
    expect(doc.paths["/v1/sessions"]!.post!.responses["201"]!.headers?.["Location"]).toBeDefined();
  });

  it("gives every request body an example", async () => {
    const doc = await servedDocument();
    const all = [
      ...operations(doc),
      ...Object.entries(doc.webhooks).flatMap(([name, item]) => Object.values(item).map((op): [string, Operation] => [name, op])),
    ];
    for (const [name, op] of all) {
      for (const media of Object.values(op.requestBody?.content ?? {})) expect(media.example, name).toBeDefined();
    }
  });

  // A list read with a GET takes them in its query; one that takes a body (POST
  // /v1/memory/namespaces, whose prefix is an array) takes them in the body beside its filters.
  it("pages every list the same way: limit and cursor in, data and next_cursor out", async () => {
    const doc = await servedDocument();
    const lists = operations(doc).filter(([, op]) => op.responses["200"]?.content?.["application/json"]?.schema?.$ref?.endsWith("Page"));
    expect(lists.length).toBeGreaterThanOrEqual(6);
    for (const [name, op] of lists) {
      const bodyRef = op.requestBody?.content["application/json"]?.schema?.$ref;
      const taken = bodyRef
        ? Object.keys(doc.components.schemas[bodyRef.split("/").pop()!]?.properties ?? {})
        : (op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
      expect(taken, name).toEqual(expect.arrayContaining(["limit", "cursor"]));
      const page = doc.components.schemas[op.responses["200"]!.content!["application/json"]!.schema!.$ref!.split("/").pop()!]!;
      expect(page.required, name).toEqual(["data", "next_cursor"]);
    }
  });

  it("names the problem codes and the final statuses as enums", async () => {
    const { schemas } = (await servedDocument()).components;
    expect(schemas.ProblemCode?.enum).toEqual(PROBLEM_CODES);
    expect(schemas.Problem?.required).toContain("code");
    expect(schemas.FinalStatus?.enum).toEqual(FINAL_STATUSES);
  });

  it("describes the signed webhook-tool request under webhooks", async () => {
    const call = (await servedDocument()).webhooks.toolCall?.post;
    expect(call?.parameters?.filter((p) => p.in === "header").map((p) => p.name)).toEqual([
      "Idempotency-Key",
      "X-Webhook-Timestamp",
      "X-Webhook-Signature",
    ]);
    expect(call?.requestBody?.required).toBe(true);
    const body = (await servedDocument()).components.schemas.WebhookToolCall;
    expect(body?.required).toEqual(["tenant_id", "session_id", "created_by", "tool_call_id", "name", "url", "input"]);
  });
});
