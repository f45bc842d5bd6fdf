/**
 * The models a tenant's sessions may choose, as its platform admin narrowed them: a list of
 * model ids and `prefix*` patterns in the index's key-value storage, or nothing (the key is
 * absent) for every model the platform offers.
 */
import { MAX_MODELS, MODEL_PATTERN } from "../config";

const MODELS_KEY = "allowed_models";

export function readAllowedModels(kv: SyncKvStorage): string[] | null {
  return kv.get<string[]>(MODELS_KEY) ?? null;
}

/** Replaces the list as a whole; null removes the narrowing. */
export function writeAllowedModels(kv: SyncKvStorage, models: string[] | null): void {
  if (models === null) kv.delete(MODELS_KEY);
  else kv.put(MODELS_KEY, models);
}

/** The gateway validated the list already; a malformed one here is a bug and throws. */
export function parseAllowedModels(value: unknown): string[] | null {
  if (value === null) return null;
  if (!Array.isArray(value) || value.length > MAX_MODELS || !value.every((m) => typeof m === "string" && MODEL_PATTERN.test(m))) {
    throw new TypeError("models must be null or a list of model ids and patterns");
  }
  return [...new Set(value as string[])];
}
