/**
 * The fuzzer's requests, made from the served OpenAPI document and a seed alone: for an
 * operation, its path and query parameters, headers and body, each either generated from the
 * operation's own schemas (json-schema-faker, seeded) or one of them bent into something the
 * schema refuses. The same seed makes the same requests, so a failure is replayed by its seed.
 */
import { Validator } from "@cfworker/json-schema";
import { generateSync, type JsonSchema } from "json-schema-faker";
import type { Random } from "./random";

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema?: Schema;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema; example?: unknown }> };
  responses: Record<string, { content?: Record<string, unknown> }>;
}
export interface ApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, unknown>;
}

export interface FuzzOperation {
  method: string;
  template: string;
  operation: Operation;
}

export interface FuzzRequest {
  method: string;
  template: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** How the request was made: `valid`, or which part was bent. */
  kind: string;
}

const METHODS = ["get", "put", "post", "patch", "delete"];

/** Every operation of the document, in the document's order. */
export function operationsOf(document: ApiDocument): FuzzOperation[] {
  return Object.entries(document.paths).flatMap(([template, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ method: method.toUpperCase(), template, operation: item[method]! })),
  );
}

/** Values that break schemas in the ways inputs do: wrong types, impossible days, edges of numbers, odd text. */
const HOSTILE: readonly unknown[] = [
  "",
  " ",
  "2026-13-01",
  "0000-00-00",
  "2025-02-29",
  "9999-99-99T99:99:99Z",
  -1,
  0,
  2 ** 31,
  2 ** 53 + 2,
  -(2 ** 63),
  1e308,
  0.5,
  Number.NaN,
  null,
  true,
  [],
  [null],
  {},
  { a: { b: { c: [] } } },
  "x".repeat(300),
  "../../etc/passwd",
  "%00",
  "\u0000",
  "\ud800",
  "<script>",
  "' OR 1=1 --",
  "agt_0000000000000000000000@production",
  "ses_0000000000000000000000000000",
  "*/5 * * * *",
  "Mars/Olympus_Mons",
  "http://127.0.0.1:1/",
  "😀".repeat(40),
];

/** Raw bodies no schema describes. */
const RAW_BODIES: readonly string[] = [
  "{",
  "[]",
  "null",
  '"text"',
  "0",
  "[[[[[[[[]]]]]]]]",
  '{"a":',
  "\u0000\u0001",
  '{"__proto__":{"x":1}}',
];

function pick<T>(random: Random, list: readonly T[]): T {
  return list[random.between(0, list.length - 1)]!;
}

/** Generated from `schema` (references resolved in the document), small enough to send often. */
function generated(document: ApiDocument, schema: Schema | undefined, random: Random): unknown {
  if (!schema) return undefined;
  const root = { ...schema, components: document.components } as JsonSchema;
  try {
    return generateSync(root, {
      seed: random.between(1, 2 ** 31),
      maxDepth: 4,
      maxLength: 40,
      maxItems: 3,
      maxDefaultItems: 2,
      useExamplesValue: true,
      alwaysFakeOptionals: false,
    });
  } catch {
    // A schema the generator cannot satisfy: the fuzzer sends something else, never nothing.
    return pick(random, HOSTILE);
  }
}

/** Tries at making a value its schema accepts: the generator's choices among `oneOf` branches can miss. */
const VALID_TRIES = 20;

/**
 * Generated from `schema` and accepted by it (a 2020-12 validator over the document); when no try
 * is (items nested past the generator's depth), the document's example where it shows one, else
 * the last try.
 */
function generatedValid(document: ApiDocument, schema: Schema | undefined, random: Random, example?: unknown): unknown {
  if (!schema) return undefined;
  const validator = new Validator({ ...schema, components: document.components } as never, "2020-12", false);
  let value: unknown;
  for (let attempt = 0; attempt < VALID_TRIES; attempt++) {
    value = generated(document, schema, random);
    if (validator.validate(value).valid) return value;
  }
  return example ?? value;
}

/** One field of an object (or the value itself) replaced by a hostile value. */
function bent(value: unknown, random: Random): unknown {
  if (value && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length > 0 && random.next() < 0.8) {
    const keys = Object.keys(value);
    return { ...value, [pick(random, keys)]: pick(random, HOSTILE) };
  }
  return pick(random, HOSTILE);
}

/** A parameter's text; a lone surrogate becomes U+FFFD, as any HTTP client would send it. */
function asParameter(value: unknown): string {
  if (value === undefined) return "x";
  return (typeof value === "string" ? value : (JSON.stringify(value) ?? "null")).replace(/[\ud800-\udfff]/gu, "\ufffd");
}

/** The request for `op`, made from `random` alone; `validOnly` makes every part from its schema. */
export function fuzzRequest(document: ApiDocument, op: FuzzOperation, random: Random, validOnly = false): FuzzRequest {
  const roll = random.next();
  const kind =
    validOnly || roll < 0.35 ? "valid" : roll < 0.6 ? "bent-body" : roll < 0.8 ? "bent-parameter" : roll < 0.9 ? "raw-body" : "no-body";
  const parameters = op.operation.parameters ?? [];
  const bentParameter = kind === "bent-parameter" && parameters.length > 0 ? pick(random, parameters).name : null;
  const make = validOnly ? generatedValid : generated;
  const valueOf = (parameter: Parameter) =>
    parameter.name === bentParameter ? bent(undefined, random) : make(document, parameter.schema, random);

  let path = op.template;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const parameter of parameters) {
    if (parameter.in === "path") path = path.replace(`{${parameter.name}}`, encodeURIComponent(asParameter(valueOf(parameter))) || "x");
    else if (parameter.in === "query" && (parameter.required || random.next() < 0.5))
      query.set(parameter.name, asParameter(valueOf(parameter)));
    else if (parameter.in === "header" && random.next() < 0.5)
      headers[parameter.name] = asParameter(valueOf(parameter)).replace(/[^\x20-\x7e]/g, "?");
  }
  const search = query.toString();

  const media = op.operation.requestBody?.content?.["application/json"];
  let body: string | undefined;
  if (kind === "raw-body") body = pick(random, RAW_BODIES);
  else if (kind !== "no-body" && media) {
    const value = validOnly ? generatedValid(document, media.schema, random, media.example) : generated(document, media.schema, random);
    body = JSON.stringify(kind === "bent-body" ? bent(value, random) : value) ?? "null";
  }
  // A body in another media type only (JSON Lines): its documented example, sent as that type.
  const [otherType, other] = Object.entries(op.operation.requestBody?.content ?? {})[0] ?? [];
  const asOther = !media && other !== undefined && typeof other.example === "string" && kind !== "no-body" && kind !== "raw-body";
  if (asOther) body = other.example as string;
  if (body !== undefined) {
    if (op.method === "GET" || op.method === "DELETE") body = undefined;
    else
      headers["Content-Type"] = asOther
        ? otherType!
        : validOnly || random.next() < 0.9
          ? "application/json"
          : pick(random, ["text/plain", "application/xml", "application/json; charset=latin1"]);
  }
  const streams = op.template.endsWith("/events") || op.template === "/v1/mcp";
  headers["Accept"] = streams
    ? "application/json, text/event-stream"
    : validOnly
      ? "*/*"
      : random.next() < 0.9
        ? "application/json"
        : pick(random, ["*/*", "text/html", "image/png"]);
  return { method: op.method, template: op.template, path: search ? `${path}?${search}` : path, headers, body, kind };
}

/** The media types the document lists for `status` under the operation, or null when the status is not listed. */
export function documentedTypes(op: FuzzOperation, status: number): string[] | null {
  const response = op.operation.responses[String(status)];
  return response ? Object.keys(response.content ?? {}) : null;
}
