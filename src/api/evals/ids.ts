/** A path's eval id: one that cannot be an eval's is answered 404 without a lookup. */
import { EVAL_NOT_FOUND } from "../../evals/client";
import { ApiError } from "../errors";
import { EVAL_ID_PATTERN } from "./schemas";

export function knownEvalId(id: string): string {
  if (!EVAL_ID_PATTERN.test(id)) throw new ApiError("not_found", EVAL_NOT_FOUND);
  return id;
}
