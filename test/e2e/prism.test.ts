/**
 * Prism, Stoplight's validating proxy, in front of `wrangler dev` with openapi/openapi.json: a
 * session's flow (created, run, read, its events streamed) and every operation of the document
 * called with requests made from its own schemas (support/fuzz-requests.ts) pass through it, and
 * it finds no request and no response that breaks the document. Prism reports what it finds in
 * the `sl-violations` header of the answer it passes on.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childEnv, freePort, LOOPBACK, nodeBinary, PROJECT_ROOT } from "./support/environment";
import { type ApiDocument, fuzzRequest, operationsOf } from "./support/fuzz-requests";
import { type GroupChild, spawnGroup } from "./support/process-group";
import { seededRandom } from "./support/random";
import { say } from "./support/scenario";
import { type SharedStack, sharedStack, uniqueName } from "./support/stack";
import { tokenMinter } from "./support/tokens";

const PRISM = join(PROJECT_ROOT, "node_modules", "@stoplight", "prism-cli", "dist", "index.js");
const DOCUMENT = join(PROJECT_ROOT, "openapi", "openapi.json");
const STARTUP_TIMEOUT_MS = 60_000;
/** Requests made from each operation's schemas; the seed keeps them the same from run to run. */
const REQUESTS_PER_OPERATION = 1;
const SEED = 75;
const EVERY_SCOPE = [
  "sessions:read",
  "sessions:write",
  "agents:write",
  "memory:read",
  "memory:write",
  "tenant:admin",
  "platform:admin",
] as const;

interface Violation {
  location: string[];
  code: string | number;
  message: string;
}

/** The header's list; past a size Prism sends a sentence instead, counted as one violation of the answer. */
function parseViolations(header: string): Violation[] {
  try {
    return JSON.parse(header) as Violation[];
  } catch {
    return [{ location: ["response"], code: "too-many", message: header }];
  }
}

describe("Prism as a validating proxy in front of the platform", () => {
  let stack: SharedStack;
  let prism: GroupChild;
  let base: string;

  beforeAll(async () => {
    stack = await sharedStack();
    const port = await freePort();
    prism = spawnGroup(nodeBinary(), [PRISM, "proxy", DOCUMENT, stack.platform.url, "--host", LOOPBACK, "--port", String(port)], {
      cwd: PROJECT_ROOT,
      env: childEnv({}),
    });
    await prism.waitForOutput((output) => output.includes("Prism is listening"), STARTUP_TIMEOUT_MS);
    base = `http://${LOOPBACK}:${port}`;
  }, STARTUP_TIMEOUT_MS + 10_000);
  afterAll(async () => {
    await prism?.stop("SIGKILL");
    await stack?.dispose();
  });

  it("finds no request and no response violation over a session's flow and every operation", async () => {
    const mint = await tokenMinter(stack.platform.signingKey);
    const found: { call: string; status: number; violations: Violation[] }[] = [];
    const seen = new Set<string>();
    let token = await mint({ tenantId: uniqueName("prism"), subject: "prism", scopes: [...EVERY_SCOPE] });

    const send = async (label: string, method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}) => {
      const request = () =>
        fetch(`${base}${path}`, { method, headers: { Authorization: `Bearer ${token}`, Accept: "*/*", ...init.headers }, body: init.body });
      // Once more on a failure to send: a kept-alive connection closed after the last answer fails the next request unsent.
      const res = await request().catch(request);
      const text =
        (res.headers.get("content-type") ?? "").startsWith("text/event-stream") && !path.includes("after=")
          ? (await res.body?.cancel(), "")
          : await res.text();
      const header = res.headers.get("sl-violations");
      const violations = header ? parseViolations(header) : [];
      if (violations.length > 0) found.push({ call: `${label} ${method} ${path}`, status: res.status, violations });
      seen.add(label);
      return { status: res.status, text };
    };
    const json = (body: unknown) => ({ headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

    // A session's flow, whose answers are the platform's successes rather than its refusals.
    const model = stack.mock.model(uniqueName("prism-model"));
    await model.script(say("hello from the mock"));
    const created = await send("flow", "POST", "/v1/sessions", json({ input: "hi", model: model.key }));
    expect(created.status).toBe(201);
    const id = (JSON.parse(created.text) as { id: string }).id;
    for (let i = 0; i < 100 && !/"status":"done"/.test((await send("flow", "GET", `/v1/sessions/${id}`)).text); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    for (const path of [
      `/v1/sessions/${id}/messages`,
      `/v1/sessions/${id}/steps`,
      `/v1/sessions/${id}/tool-calls`,
      "/v1/sessions",
      "/v1/tenant",
      "/v1/tenant/usage",
      "/health",
      "/openapi.json",
    ]) {
      expect((await send("flow", "GET", path)).status, path).toBe(200);
    }
    expect((await send("flow", "GET", `/v1/sessions/${id}/events?after=0`, { headers: { Accept: "text/event-stream" } })).status).toBe(200);

    // Every operation, with requests made from its own schemas.
    const document = JSON.parse(await (await fetch(`${stack.platform.url}/openapi.json`)).text()) as ApiDocument;
    const operations = operationsOf(document);
    const random = seededRandom(SEED);
    for (let round = 0; round < REQUESTS_PER_OPERATION; round++) {
      token = await mint({ tenantId: uniqueName("prism"), subject: "prism", scopes: [...EVERY_SCOPE] });
      for (const op of operations) {
        const request = fuzzRequest(document, op, random, true);
        await send(op.operation.operationId, request.method, request.path, { headers: request.headers, body: request.body });
      }
    }

    const requestSide = found.flatMap((call) =>
      call.violations.filter((v) => v.location[0] === "request").map((v) => `${call.call}: ${v.message}`),
    );
    const responseSide = found.flatMap((call) =>
      call.violations.filter((v) => v.location[0] !== "request").map((v) => `${call.call} ${call.status}: ${v.message}`),
    );
    console.log(
      `prism: ${JSON.stringify({ operations: operations.length, called: seen.size - 1, request_violations: requestSide.length, response_violations: responseSide.length })}`,
    );
    expect(operations.every((op) => seen.has(op.operation.operationId))).toBe(true);
    expect({ request: requestSide, response: responseSide }, prism.output().slice(-6000)).toEqual({ request: [], response: [] });
  }, 300_000);
});
