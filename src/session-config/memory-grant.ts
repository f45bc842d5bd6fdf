/** The `memory` field of a session's create body: the namespaces its model may read and write. */
import { z } from "@hono/zod-openapi";
import { GRANT_SEGMENT_PATTERN, MAX_GRANT_NAMESPACES, MAX_NAMESPACE_SEGMENTS, MAX_SEGMENT_CHARS } from "./memory-namespace";

/** A grant's namespace: segments, or `{metadata.<field>}` filled from the session's metadata. */
const GrantSegmentSchema = z
  .string()
  .max(MAX_SEGMENT_CHARS + 12, { abort: true })
  .regex(GRANT_SEGMENT_PATTERN, "Must be a namespace segment or {metadata.<field>}.");

export const MemoryGrantSchema = z
  .object({
    namespaces: z.array(z.array(GrantSegmentSchema).min(1).max(MAX_NAMESPACE_SEGMENTS)).min(1).max(MAX_GRANT_NAMESPACES),
    write: z.array(z.array(GrantSegmentSchema).min(1).max(MAX_NAMESPACE_SEGMENTS)).max(MAX_GRANT_NAMESPACES).optional(),
  })
  .strict()
  .openapi("MemoryGrant", {
    description:
      "The memory namespaces the session's model may read (`memory_search`, `memory_get`) and write (`memory_put`, `memory_delete`; each " +
      "within a read one). A segment `{metadata.<field>}` is filled from the session's metadata at creation.",
    example: { namespaces: [["users", "{metadata.user_id}"]], write: [["users", "{metadata.user_id}"]] },
  });
