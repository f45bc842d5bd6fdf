/**
 * The validation hook of every route: zod issues become one 400 problem listing each bad
 * field, with its location (`body`, `query`, `path`, `header`) as the first path segment.
 */
import type { Hook } from "@hono/zod-openapi";
import type { ValidationTargets } from "hono";
import type { z } from "zod";
import { ApiError, type FieldError } from "../errors";

const LOCATIONS: Record<keyof ValidationTargets, string> = {
  json: "body",
  form: "body",
  query: "query",
  param: "path",
  header: "header",
  cookie: "cookie",
};

/** Pure: the wire form of zod issues found in `target`. */
export function fieldErrors(issues: readonly z.core.$ZodIssue[], target: keyof ValidationTargets): FieldError[] {
  const location = LOCATIONS[target];
  return issues.flatMap(withinUnion).map((issue) => ({
    path: [location, ...issue.path.map((segment) => String(segment))].join("."),
    message: issue.message,
  }));
}

/**
 * A value that fits no branch of a union (`{ … } | null`) is told what is wrong inside the one
 * branch of its own type, at the field itself, rather than that it is no branch at all.
 */
function withinUnion(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== "invalid_union" || !("errors" in issue) || !Array.isArray(issue.errors)) return [issue];
  const inside = issue.errors.filter(
    (branch) => !(branch.length === 1 && branch[0]!.code === "invalid_type" && branch[0]!.path.length === 0),
  );
  if (inside.length !== 1) return [issue];
  return inside[0]!.map((nested) => ({ ...nested, path: [...issue.path, ...nested.path] }));
}

// `Hook` is generic over each route's input; the hook itself only reads the failure.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const validationHook: Hook<any, any, any, any> = (result) => {
  if (result.success) return;
  throw new ApiError("validation_failed", undefined, { errors: fieldErrors(result.error.issues, result.target) });
};
