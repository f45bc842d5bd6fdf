/**
 * A seeded fuzzer over every operation of the served document, against `wrangler dev`: requests
 * made from each operation's own schemas, valid or bent (json-schema-faker; see
 * support/fuzz-requests.ts), sent by a principal that holds every scope. No answer may be a 500,
 * and every error must be one the document lists for that operation, in a media type it lists
 * (a problem document unless the operation says otherwise). `FUZZ_SEED` replays a run,
 * `FUZZ_REQUESTS` makes it longer (docs/testing.md).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiDocument, documentedTypes, type FuzzRequest, fuzzRequest, operationsOf } from "./support/fuzz-requests";
import { seededRandom } from "./support/random";
import { type SharedStack, sharedStack, uniqueName } from "./support/stack";
import { tokenMinter } from "./support/tokens";

/** The run CI makes: every operation several times over, in well under a minute. */
const DEFAULT_REQUESTS = 300;
const DEFAULT_SEED = 41;
/** Requests per principal: a fresh tenant before its request window fills, so most requests reach their route. */
const REQUESTS_PER_TENANT = 60;
/** No answer of the platform's takes this long; one that does is a finding, not a wait. */
const ANSWER_TIMEOUT_MS = 20_000;
const EVERY_SCOPE = [
  "sessions:read",
  "sessions:write",
  "agents:write",
  "memory:read",
  "memory:write",
  "tenant:admin",
  "platform:admin",
] as const;

function fromEnv(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

const SEED = fromEnv("FUZZ_SEED", DEFAULT_SEED);
const COUNT = fromEnv("FUZZ_REQUESTS", DEFAULT_REQUESTS);
/** A second a request at most, on a machine shared with other suites, and the start on top. */
const RUN_TIMEOUT_MS = 60_000 + COUNT * 1_000;

interface Finding {
  index: number;
  request: FuzzRequest;
  status: number;
  contentType: string;
  why: string;
  body: string;
}

describe("fuzzing every operation of the served document", () => {
  let stack: SharedStack;
  beforeAll(async () => {
    stack = await sharedStack();
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  it(
    "answers no request with a 500, and every error as the document lists it",
    async () => {
      const seed = SEED;
      const count = COUNT;
      const document = (await (await fetch(`${stack.platform.url}/openapi.json`)).json()) as ApiDocument;
      const operations = operationsOf(document);
      expect(operations.length).toBeGreaterThan(70);
      const random = seededRandom(seed);
      const mint = await tokenMinter(stack.platform.signingKey);
      const findings: Finding[] = [];
      const statuses = new Map<number, number>();
      let token = "";

      for (let index = 0; index < count; index++) {
        if (index % REQUESTS_PER_TENANT === 0)
          token = await mint({ tenantId: uniqueName("fuzz"), subject: "fuzzer", scopes: [...EVERY_SCOPE] });
        const op = operations[index % operations.length]!;
        const request = fuzzRequest(document, op, random);
        const send = () =>
          fetch(`${stack.platform.url}${request.path}`, {
            method: request.method,
            headers: { Authorization: `Bearer ${token}`, ...request.headers },
            body: request.body,
            signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
          });
        let res: Response;
        try {
          // Once more on a failure to send: a kept-alive connection the server closed after the last
          // answer (whose body it did not read) fails the next request before the server sees it.
          res = await send().catch(send);
        } catch (error) {
          // No answer at all (the connection dropped twice, or the time ran out) is a finding like a 500.
          findings.push({
            index,
            request,
            status: 0,
            contentType: "",
            why: `no answer: ${String((error as Error).cause ?? error)}`,
            body: "",
          });
          continue;
        }
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const contentType = (res.headers.get("content-type") ?? "").split(";")[0]!.trim();
        // A stream is judged by its head: its body may never end.
        const body = contentType === "text/event-stream" ? (await res.body?.cancel(), "") : await res.text();
        const finding = (why: string) => findings.push({ index, request, status: res.status, contentType, why, body: body.slice(0, 300) });
        if (res.status >= 500 && res.status !== 503) finding("a server error");
        else if (res.status >= 400) {
          const listed = documentedTypes(op, res.status);
          if (listed === null) finding("a status the document does not list for this operation");
          else if (contentType !== "" && !listed.includes(contentType))
            finding(`a media type the document does not list for this status (${listed.join(", ")})`);
          else if (contentType === "application/problem+json" && typeof (JSON.parse(body) as { code?: unknown }).code !== "string")
            finding("a problem without a code");
        }
      }

      console.log(
        `fuzz: ${JSON.stringify({ seed, requests: count, operations: operations.length, statuses: Object.fromEntries([...statuses].sort()), findings: findings.length })}`,
      );
      expect(findings, `replay with FUZZ_SEED=${seed} FUZZ_REQUESTS=${count}${findings.length > 0 ? `\n${stack.logs()}` : ""}`).toEqual([]);
    },
    RUN_TIMEOUT_MS,
  );
});
