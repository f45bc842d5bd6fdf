/** Calls the Worker's own `fetch` (src/index.ts) as a client would, and reads its answers. */
import { exports } from "cloudflare:workers";

export const BASE_URL = "https://gateway.test";

const worker = (exports as unknown as { default: Fetcher }).default;

export function call(path: string, init?: RequestInit): Promise<Response> {
  return worker.fetch(new Request(BASE_URL + path, init));
}

/** A JSON request with the given headers. */
export function callJson(path: string, method: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return call(path, { method, headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });
}

export interface ProblemBody {
  type: string;
  code: string;
  title: string;
  status: number;
  detail: string;
  request_id: string;
  errors?: { path: string; message: string }[];
}

/** The problem body; throws when the response is not `application/problem+json`. */
export async function readProblem(res: Response): Promise<ProblemBody> {
  const type = res.headers.get("Content-Type") ?? "";
  if (!type.startsWith("application/problem+json")) throw new Error(`expected a problem document, got ${type}: ${await res.text()}`);
  return (await res.json()) as ProblemBody;
}
