/**
 * Maps an Agent's `AgentResult` to the API: the value, or the problem its failure code
 * stands for. The Agent's details are written for callers, so they go on the wire.
 */
import type { AgentResult } from "../../agents/types";
import { ApiError } from "../errors";

export function agentValue<T>(result: AgentResult<T>): T {
  if (result.ok) return result.value;
  switch (result.code) {
    case "not_found":
      return fail(new ApiError("not_found", sentence(result.detail)));
    case "conflict":
      return fail(new ApiError("conflict", sentence(result.detail)));
    case "invalid":
      return fail(new ApiError("validation_failed", sentence(result.detail), { errors: [{ path: "body", message: result.detail }] }));
  }
}

function fail(error: ApiError): never {
  throw error;
}

/** "a run is already going" → "A run is already going." */
export function sentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === "") return trimmed;
  const capital = trimmed[0]!.toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}
