/**
 * The cost of judging one tool call by a Cedar policy (src/policy/): median and p99 per call for
 * a 1-statement and a 1,000-statement policy (the largest a tenant may store, 64 KiB), in
 * Node with Cedar's Node build of the same WebAssembly, compiled once as the engine does; the
 * check of the largest policy against the schema; then, against a real `wrangler dev`, another
 * tenant's latency while one tenant judges calls by its largest policy in loops
 * (`POST /v1/tenant/policy/check`).
 *
 *   npx node bench/cedar-policy.run.mjs
 *
 * Numbers depend on the machine; run it on a quiet one.
 */
import * as cedar from "@cedar-policy/cedar-wasm/nodejs";
import { cedarRequest, DEFAULT_PERMIT, DEFAULT_PERMIT_ID } from "../src/policy/request";
import { CEDAR_SCHEMA, MAX_POLICY_BYTES, MAX_POLICY_STATEMENTS, type PolicyRequest } from "../src/policy/schema";
import { timedWhile } from "../test/e2e/support/bystander";
import { startStack, uniqueName } from "../test/e2e/support/stack";

const CALLS = 5_000;
const ALONE_MS = 5_000;
const PHASE_MS = 15_000;
const LOOPS = 4;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length * p) - 1)] ?? Number.NaN;
}

/** The largest policy a tenant may store: 1,000 statements, each a condition every call evaluates (none matches). */
export function largestPolicy(): string {
  const text = Array.from(
    { length: MAX_POLICY_STATEMENTS },
    (_, i) => `forbid(principal,action,resource)when{resource.name=="t${i}"};`,
  ).join("\n");
  if (new TextEncoder().encode(text).length > MAX_POLICY_BYTES) throw new Error("the bench's policy is over the limit");
  return text;
}

const ONE = '@id("no-fetch") forbid(principal, action, resource == Tool::"http_fetch") when { principal.kind == "end_user" };';

const REQUEST: PolicyRequest = {
  principal: { id: "end_user:alice", kind: "end_user", subject: "alice" },
  tool: { name: "send", type: "webhook", trust: "trusted" },
  input: { to: "bob@example.com", body: "x".repeat(200), count: 3 },
  tainted: true,
  agent: { id: "agt_1", version: 2 },
  session_metadata: { team: "blue" },
};

function perCall(name: string, text: string): string {
  const parts = cedar.policySetTextToParts(text);
  if (parts.type !== "success") throw new Error("the policy does not parse");
  const policies: Record<string, string> = { [DEFAULT_PERMIT_ID]: DEFAULT_PERMIT };
  parts.policies.forEach((policy, i) => (policies[`tenant.policy${i}`] = policy));
  const compileStart = performance.now();
  cedar.preparsePolicySet(name, { staticPolicies: policies });
  const compileMs = performance.now() - compileStart;
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    const call = cedarRequest(REQUEST);
    const answer = cedar.statefulIsAuthorized({ ...call, preparsedPolicySetId: name } as cedar.StatefulAuthorizationCall);
    if (answer.type !== "success") throw new Error("evaluation failed");
    times.push(performance.now() - start);
  }
  const check = performance.now();
  cedar.validate({ schema: CEDAR_SCHEMA, policies: { staticPolicies: text }, validationSettings: { mode: "strict" } });
  const checkMs = performance.now() - check;
  return `| ${name} | ${parts.policies.length} | ${percentile(times, 0.5).toFixed(3)} | ${percentile(times, 0.99).toFixed(3)} | ${compileMs.toFixed(1)} | ${checkMs.toFixed(1)} |`;
}

export default async function main(): Promise<void> {
  console.log(`Per call, ${CALLS} calls each (Node ${process.version}, Cedar ${cedar.getCedarVersion()}):`);
  console.log("| policy | statements | median ms | p99 ms | compile ms (once per isolate) | schema check ms |");
  console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
  console.log(perCall("one statement", ONE));
  console.log(perCall("1,000 statements (64 KiB)", largestPolicy()));

  const stack = await startStack();
  try {
    const tenant = await stack.client(uniqueName("policy"), "admin", ["tenant:admin"]);
    const bystander = await stack.client(uniqueName("bystander"));
    await tenant.expect(200, "PUT", "/v1/tenant/policy", { cedar: largestPolicy() });
    await bystander.request("GET", "/v1/tenant");
    const body = { principal: "end_user:alice", tool: { name: "send", type: "webhook" }, input: REQUEST.input, tainted: true };
    await tenant.expect(200, "POST", "/v1/tenant/policy/check", body);
    const alone = await timedWhile(bystander, () => new Promise((resolve) => setTimeout(resolve, ALONE_MS)));
    const checks: number[] = [];
    const during = await timedWhile(bystander, async () => {
      const until = Date.now() + PHASE_MS;
      await Promise.all(
        Array.from({ length: LOOPS }, async () => {
          while (Date.now() < until) {
            const started = performance.now();
            await tenant.expect(200, "POST", "/v1/tenant/policy/check", body);
            checks.push(performance.now() - started);
          }
        }),
      );
    });
    const row = (what: string, latencies: number[]) =>
      `| ${what} | ${latencies.length} | ${percentile(latencies, 0.5).toFixed(0)} | ${percentile(latencies, 0.99).toFixed(0)} |`;
    console.log(`\nAgainst wrangler dev: ${LOOPS} loops of policy checks by the 1,000-statement policy for ${PHASE_MS / 1000} s`);
    console.log("| who | requests | median ms | p99 ms |");
    console.log("| --- | ---: | ---: | ---: |");
    console.log(row("bystander alone", alone));
    console.log(row("bystander during the checks", during));
    console.log(row("the checks themselves", checks));
  } finally {
    await stack.dispose();
  }
}
