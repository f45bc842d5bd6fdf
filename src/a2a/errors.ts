/**
 * The platform's problems as A2A errors, so a JSON-RPC client sees each as its protocol's error
 * (never a 5xx): not found → task not found (-32001), a refused request → invalid params (-32602),
 * a conflict → unsupported operation (-32004). An unexpected failure is logged, and the client is
 * told no more than that it happened (-32603).
 */
import { A2AError, RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { describeError, log } from "../log";
import { ApiError } from "../problems";

/** All a client is told of an unexpected failure. */
export const UNEXPECTED = "The request could not be completed; try again.";

export async function asA2aError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toA2aError(error);
  }
}

export function toA2aError(error: unknown): Error {
  if (error instanceof A2AError) return error;
  if (error instanceof ApiError) {
    const detail = [error.detail, ...(error.errors ?? []).map((field) => `${field.path}: ${field.message}`)].join(" ");
    if (error.status === 404) return new TaskNotFoundError({ message: detail });
    if (error.status === 409) return new UnsupportedOperationError({ message: detail });
    if (error.status < 500) return new RequestMalformedError({ message: `${error.title}: ${detail}` });
  }
  log("error", "a2a_request_failed", { error: describeError(error) });
  return new Error(UNEXPECTED);
}
