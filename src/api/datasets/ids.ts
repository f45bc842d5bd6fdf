/** A path's dataset id: one that cannot be a dataset's is answered 404 without a lookup. */
import { DATASET_NOT_FOUND } from "../../evals/client";
import { ApiError } from "../errors";
import { DATASET_ID_PATTERN } from "./schemas";

export function knownDatasetId(id: string): string {
  if (!DATASET_ID_PATTERN.test(id)) throw new ApiError("not_found", DATASET_NOT_FOUND);
  return id;
}
