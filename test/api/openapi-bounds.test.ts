/**
 * The bounds the served document states are the ones the server enforces: a request at a stated
 * maximum is accepted, one past it is a 400 at that field, and a JSON Schema validator reading
 * the document's own schema gives the same verdict as the server.
 */
import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { call, callJson, readProblem } from "../support/api";
import { caller, createSession, type Caller } from "./sessions/helpers";

type Schema = Record<string, unknown> & { properties?: Record<string, Schema> };
type Document = { components: { schemas: Record<string, Schema> } };

async function servedDocument(): Promise<Document> {
  return (await (await call("/openapi.json")).json()) as Document;
}

/** Whether the document's schema of `component` accepts `body`, read by a 2020-12 validator. */
function documentAccepts(document: Document, component: string, body: unknown): boolean {
  // The whole document as the root, so the component's references resolve in it.
  const root = { ...document, $ref: `#/components/schemas/${component}` };
  return new Validator(root as never, "2020-12", false).validate(body).valid;
}

/** The server's verdict: the status, and the fields a 400 names. */
async function send(who: Caller, path: string, method: string, body: unknown): Promise<{ status: number; fields: string[] }> {
  const res = await callJson(path, method, body, who.headers);
  if (res.status !== 400) {
    await res.body?.cancel();
    return { status: res.status, fields: [] };
  }
  return { status: 400, fields: ((await readProblem(res)).errors ?? []).map((error) => error.path) };
}

const entries = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, "v"]));

/** A tool input schema whose JSON is exactly `chars` characters long. */
function schemaOfLength(chars: number): Record<string, unknown> {
  const bare = JSON.stringify({ type: "object", description: "" }).length;
  const schema = { type: "object", description: "d".repeat(chars - bare) };
  expect(JSON.stringify(schema)).toHaveLength(chars);
  return schema;
}

/** Every integer schema in the document, wherever it is (examples are values, not schemas). */
function integerSchemas(node: unknown, found: Schema[] = []): Schema[] {
  if (Array.isArray(node)) node.forEach((item) => integerSchemas(item, found));
  else if (node && typeof node === "object") {
    const schema = node as Schema;
    if (schema.type === "integer" || (Array.isArray(schema.type) && schema.type.includes("integer"))) found.push(schema);
    for (const [key, value] of Object.entries(schema)) if (key !== "example" && key !== "examples") integerSchemas(value, found);
  }
  return found;
}

describe("the document's request bounds are the server's", () => {
  it("gives every integer the format its bounds allow: int32 when they fit in one, else int64", async () => {
    const integers = integerSchemas(await servedDocument());
    expect(integers.length).toBeGreaterThan(50);
    for (const schema of integers) {
      const { minimum, maximum } = schema as { minimum?: number; maximum?: number };
      const fits = minimum !== undefined && maximum !== undefined && minimum >= -(2 ** 31) && maximum <= 2 ** 31 - 1;
      expect(schema.format, JSON.stringify(schema)).toBe(fits ? "int32" : "int64");
    }
  });

  it("metadata: the stated maxProperties is accepted, one more is a 400 at body.metadata", async () => {
    const document = await servedDocument();
    const max = document.components.schemas.CreateSessionRequest!.properties!.metadata!.maxProperties as number;
    expect(max).toBeGreaterThan(0);
    const who = await caller();

    const atMax = { metadata: entries(max) };
    expect(await send(who, "/v1/sessions", "POST", atMax)).toEqual({ status: 201, fields: [] });
    expect(documentAccepts(document, "CreateSessionRequest", atMax)).toBe(true);

    const past = { metadata: entries(max + 1) };
    expect(await send(who, "/v1/sessions", "POST", past)).toEqual({ status: 400, fields: ["body.metadata"] });
    expect(documentAccepts(document, "CreateSessionRequest", past)).toBe(false);
  });

  it("metadata keys: the stated propertyNames maxLength is accepted, one more character is a 400", async () => {
    const document = await servedDocument();
    const keys = document.components.schemas.CreateSessionRequest!.properties!.metadata!.propertyNames as { maxLength: number };
    const who = await caller();

    const atMax = { metadata: { ["k".repeat(keys.maxLength)]: "v" } };
    expect((await send(who, "/v1/sessions", "POST", atMax)).status).toBe(201);
    expect(documentAccepts(document, "CreateSessionRequest", atMax)).toBe(true);

    const past = { metadata: { ["k".repeat(keys.maxLength + 1)]: "v" } };
    expect((await send(who, "/v1/sessions", "POST", past)).status).toBe(400);
    expect(documentAccepts(document, "CreateSessionRequest", past)).toBe(false);
  });

  it("input_schema: the stated x-max-json-chars is accepted, one more character is a 400 at the tool's input_schema", async () => {
    const document = await servedDocument();
    const max = document.components.schemas.ClientTool!.properties!.input_schema!["x-max-json-chars"] as number;
    expect(max).toBeGreaterThan(0);
    const who = await caller();
    const tool = (chars: number) => ({
      tools: [{ type: "client", name: "lookup", description: "Looks up.", input_schema: schemaOfLength(chars) }],
    });

    expect(await send(who, "/v1/sessions", "POST", tool(max))).toEqual({ status: 201, fields: [] });
    expect(await send(who, "/v1/sessions", "POST", tool(max + 1))).toEqual({ status: 400, fields: ["body.tools.0.input_schema"] });
  });

  it("a schedule: exactly one of session and message, and a session's input, as the document's oneOf says", async () => {
    const document = await servedDocument();
    const who = await caller();
    const target = await createSession(who, {});
    const cron = "0 9 * * *";
    const session = { input: "the daily job" };
    const message = { session_id: target.id, input: "the daily nudge" };
    const cases: [string, Record<string, unknown>, { status: number; fields: string[] }][] = [
      ["a session", { cron, session }, { status: 201, fields: [] }],
      ["a message", { cron, message }, { status: 201, fields: [] }],
      ["both", { cron, session, message }, { status: 400, fields: ["body.session"] }],
      ["neither", { cron }, { status: 400, fields: ["body.session"] }],
      ["a session without input", { cron, session: { system: "no input" } }, { status: 400, fields: ["body.session.input"] }],
    ];
    for (const [name, body, verdict] of cases) {
      expect(await send(who, "/v1/schedules", "POST", body), name).toEqual(verdict);
      expect(documentAccepts(document, "CreateScheduleRequest", body), name).toBe(verdict.status === 201);
    }
  });

  it("a schedule update: at least one field, as the document's minProperties says", async () => {
    const document = await servedDocument();
    const who = await caller();
    const created = (await (
      await callJson("/v1/schedules", "POST", { cron: "0 9 * * *", session: { input: "job" } }, who.headers)
    ).json()) as { id: string };

    expect(await send(who, `/v1/schedules/${created.id}`, "PATCH", {})).toEqual({ status: 400, fields: ["body"] });
    expect(documentAccepts(document, "UpdateScheduleRequest", {})).toBe(false);
    expect(await send(who, `/v1/schedules/${created.id}`, "PATCH", { paused: true })).toEqual({ status: 200, fields: [] });
    expect(documentAccepts(document, "UpdateScheduleRequest", { paused: true })).toBe(true);
  });
});
