/** Schemas of the dataset routes: the Dataset, its items, and the path and query parameters. */
import { z } from "@hono/zod-openapi";
import { MAX_DATASET_ITEMS } from "../../evals/door";
import { decodeTimeIdCursor } from "../../shared/cursor";
import { RunInputSchema } from "../../session-config/request-schemas";
import { pageQuerySchema, pageSchema, TimestampSchema } from "../schemas";

/** A dataset's id; a path's id that does not match is answered 404 without a lookup. */
export const DATASET_ID_PATTERN = /^dst_[A-Za-z0-9_-]{20,60}$/;

/** One item as JSON: a case is a prompt and its answer, not a document. */
export const MAX_DATASET_ITEM_BYTES = 64 * 1024;

export const DatasetItemSchema = z
  .object({
    // A bare reference: a description beside it makes an `allOf` that request generators misread.
    input: RunInputSchema,
    expected: z.unknown().optional().openapi({ description: "What scorers compare with (`exact`, `contains`, a judge's reference)." }),
    metadata: z.record(z.string(), z.unknown()).optional().openapi({ description: "The tenant's own notes; not sent to the agent." }),
  })
  .strict()
  .superRefine((item, ctx) => {
    if (new TextEncoder().encode(JSON.stringify(item)).length > MAX_DATASET_ITEM_BYTES)
      ctx.addIssue({ code: "custom", message: `An item is at most ${MAX_DATASET_ITEM_BYTES} bytes of JSON.` });
  })
  .openapi("DatasetItem");

export const DatasetItemsSchema = z.array(DatasetItemSchema).max(MAX_DATASET_ITEMS);

export const CreateDatasetRequestSchema = z
  .object({
    name: z.string().min(1).max(200).openapi({ example: "capitals" }),
    items: DatasetItemsSchema.openapi({ description: `At most ${MAX_DATASET_ITEMS} items.` }),
  })
  .strict()
  .openapi("CreateDatasetRequest");

export const AddItemsRequestSchema = z
  .object({ items: DatasetItemsSchema.min(1).openapi({ description: "Appended in order, after the dataset's items." }) })
  .strict()
  .openapi("AddDatasetItemsRequest");

export const FromSessionRequestSchema = z
  .object({
    session_id: z.string().min(1).max(80).openapi({ pattern: "^ses_[A-Za-z0-9_-]{24,76}$", example: "ses_3kTq9vXbW2mYp7LsQa1Zc0Rd" }),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .openapi("DatasetItemFromSessionRequest");

export const DatasetSchema = z
  .object({
    id: z.string().openapi({ example: "dst_3kTq9vXbW2mYp7LsQa1Zc0Rd" }),
    name: z.string(),
    version: z.number().int().openapi({ description: "1 at creation; one more on every change of its items." }),
    item_count: z.number().int(),
    created_by: z.string(),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .openapi("Dataset");

export const DatasetWithItemsSchema = DatasetSchema.extend({ items: z.array(DatasetItemSchema) }).openapi("DatasetWithItems");

export const DatasetPageSchema = pageSchema(DatasetSchema, "DatasetPage");

export const DatasetListQuerySchema = pageQuerySchema((cursor) => decodeTimeIdCursor("datasets", cursor) !== null);

/** Not checked against the pattern here: a malformed id is answered 404 like any unknown one. */
const DatasetIdParam = z.string().openapi({
  param: { name: "id", in: "path" },
  maxLength: 64,
  pattern: DATASET_ID_PATTERN.source,
  example: "dst_3kTq9vXbW2mYp7LsQa1Zc0Rd",
});

export const DatasetIdParamsSchema = z.object({ id: DatasetIdParam });

export const ItemParamsSchema = z.object({
  id: DatasetIdParam,
  index: z
    .string()
    .max(4)
    .regex(/^(0|[1-9][0-9]{0,3})$/, "Must be an item's index.")
    .openapi({ param: { name: "index", in: "path" }, example: "0" }),
});

export const CREATE_DATASET_EXAMPLE = {
  name: "capitals",
  items: [
    { input: "What is the capital of France?", expected: "Paris" },
    { input: "What is the capital of Japan?", expected: "Tokyo", metadata: { region: "asia" } },
  ],
};
