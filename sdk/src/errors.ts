/** The one error the helpers throw: an answer that is not a success, with its problem document. */
import type { Problem, ProblemCode } from "./types.ts";

export class PlatformError extends Error {
  override name = "PlatformError";
  readonly status: number;
  /** The problem's stable code to switch on; null when the body was not a problem document. */
  readonly code: ProblemCode | null;
  readonly problem: Problem | null;
  /** The platform's id of the failed request (the problem's `request_id`, else the `X-Request-Id` header), to quote when reporting it. */
  readonly requestId: string | null;

  constructor(response: Response, body: unknown) {
    const problem = isProblem(body) ? body : null;
    super(`${response.status} ${problem ? `${problem.code}: ${problem.detail}` : response.statusText}`);
    this.status = response.status;
    this.problem = problem;
    this.code = problem?.code ?? null;
    this.requestId = problem?.request_id ?? response.headers.get("X-Request-Id");
  }
}

function isProblem(body: unknown): body is Problem {
  return typeof body === "object" && body !== null && "code" in body && "status" in body && "detail" in body;
}

/** What every openapi-fetch call resolves to. */
export interface Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful call; a `PlatformError` otherwise. */
export async function expectData<T>(call: Promise<Result<T>> | Result<T>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok || error !== undefined) throw new PlatformError(response, error);
  // A 204 has no body: its data is undefined, which is what the caller asked for.
  return data as T;
}
