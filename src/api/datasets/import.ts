/**
 * `POST /v1/datasets/{id}/import`: items appended from a JSONL body (`application/x-ndjson`), one
 * item per line, blank lines skipped. Every bad line is reported at `body.line.<n>` (1-based), and
 * nothing is added unless every line is good.
 */
import { createRoute, type RouteHandler, z } from "@hono/zod-openapi";
import { EvalClient } from "../../evals/client";
import { MAX_DATASET_ITEMS } from "../../evals/door";
import { MAX_MAX_REQUEST_BYTES } from "../../limits";
import { MAX_REPORTED_FIELD_ERRORS } from "../../problems";
import type { DatasetItem } from "../../evals/types";
import { auditContext } from "../audit-context";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses, type FieldError } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { knownDatasetId } from "./ids";
import { DatasetIdParamsSchema, DatasetItemSchema, DatasetSchema } from "./schemas";

export const NDJSON = "application/x-ndjson";

export const route = createRoute({
  method: "post",
  path: "/v1/datasets/{id}/import",
  operationId: "importDatasetItems",
  summary: "Import dataset items from JSONL",
  description: `One item (\`{ input, expected?, metadata? }\`) per line. 400 with each bad line at \`body.line.<n>\`; 415 for another content type. At most ${MAX_DATASET_ITEMS} items in the dataset.`,
  tags: ["Evals"],
  security: bearerAuth("agents:write"),
  middleware: [requireScope("agents:write")] as const,
  request: {
    params: DatasetIdParamsSchema,
    body: {
      required: true,
      content: {
        [NDJSON]: {
          schema: z.string().max(MAX_MAX_REQUEST_BYTES),
          example: '{"input":"What is 2 + 2?","expected":"4"}\n{"input":"What is 3 + 3?","expected":"6"}\n',
        },
      },
    },
  },
  responses: {
    200: jsonContent(DatasetSchema, "The dataset at its new version."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 404),
  },
});

/**
 * Pure: the items of a JSONL text, or the problems at their lines: the first ones an answer names
 * (`MAX_REPORTED_FIELD_ERRORS`), and how many there are, so a body of garbage lines costs no more.
 */
export function parseJsonl(text: string): { items: DatasetItem[] } | { errors: FieldError[]; problems: number } {
  const items: DatasetItem[] = [];
  const errors: FieldError[] = [];
  let problems = 0;
  const report = (error: FieldError) => {
    problems++;
    if (errors.length < MAX_REPORTED_FIELD_ERRORS) errors.push(error);
  };
  const lines = text.split("\n");
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === "") return;
    const path = `body.line.${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      report({ path, message: "Not a JSON value." });
      return;
    }
    // Items past the limit are refused below: not checked one by one.
    if (items.length > MAX_DATASET_ITEMS) return;
    const parsed = DatasetItemSchema.safeParse(value);
    if (parsed.success) items.push(parsed.data as DatasetItem);
    else for (const issue of parsed.error.issues) report({ path: [path, ...issue.path].join("."), message: issue.message });
  });
  if (problems === 0 && items.length === 0) report({ path: "body", message: "No items: the body has no non-blank line." });
  if (problems === 0 && items.length > MAX_DATASET_ITEMS) report({ path: "body", message: `At most ${MAX_DATASET_ITEMS} items.` });
  return problems ? { errors, problems } : { items };
}

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const id = knownDatasetId(c.req.valid("param").id);
  const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== NDJSON) throw new ApiError("unsupported_media_type", `The body must be \`${NDJSON}\`: one item per line.`);
  // Decoded by hand: the runtime warns on `.text()` of a type it does not know as text.
  const parsed = parseJsonl(new TextDecoder().decode(await c.req.arrayBuffer()));
  if ("errors" in parsed)
    throw new ApiError(
      "validation_failed",
      parsed.problems > parsed.errors.length
        ? `${parsed.problems} problems in the lines; errors names the first ${parsed.errors.length}.`
        : "Some lines are not dataset items; see errors.",
      { errors: parsed.errors },
    );
  const client = new EvalClient(c.env, c.var.principal.tenantId);
  return c.json(await client.call("addItems", { id, items: parsed.items, now: Date.now() }, auditContext(c)), 200);
};
