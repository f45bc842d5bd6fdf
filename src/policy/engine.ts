/**
 * The Cedar engine: checks a policy against the schema and judges calls with compiled sets.
 * Cedar's WebAssembly build for the web, instantiated from the module the bundler compiled
 * ahead of time (Workers cannot compile WebAssembly from bytes at run time). Loaded through
 * load.ts only.
 */
import type * as cedar from "@cedar-policy/cedar-wasm/web";
import { createCedar, type Cedar } from "./cedar-glue.gen";
// By path: the package exports no subpath for its .wasm file. Its .d.ts types the instance's
// exports; the bundler hands over the compiled module as the default export.
import * as cedarWasmFile from "../../node_modules/@cedar-policy/cedar-wasm/web/cedar_wasm_bg.wasm";
import { CEDAR_SCHEMA, MAX_POLICY_BYTES, MAX_POLICY_STATEMENTS, type PolicyDecision, type PolicyRequest } from "./schema";
import { cedarRequest, decisionOf, DEFAULT_PERMIT, DEFAULT_PERMIT_ID, type PolicyMeta } from "./request";
import { shapeError } from "./limits";

const wasmModule = (cedarWasmFile as unknown as { default: WebAssembly.Module }).default;
let instance: Cedar = createCedar(wasmModule);

/** Thrown when Cedar's instance trapped: it was replaced, and the call it was making failed. */
export class CedarTrap extends Error {}

/**
 * Every call into Cedar goes through here. A trap (a WebAssembly RuntimeError) leaves the
 * instance's memory and stack broken for every later call, whichever tenant makes it: the
 * instance is thrown away and a new one made, with the compiled sets it held.
 */
export function withCedar<T>(use: (cedar: Cedar) => T): T {
  try {
    return use(instance);
  } catch (error) {
    if (!(error instanceof WebAssembly.RuntimeError)) throw error;
    instance = createCedar(wasmModule);
    compiled.clear();
    nextSlot = 0;
    throw new CedarTrap(`Cedar failed (${error.message}); its instance was replaced`);
  }
}

/** The sets compiled inside the engine at once: each slot is reused, so memory stays bounded whatever tenants send. */
const COMPILED_SLOTS = 32;

export type PolicyCheck = { ok: true; statements: number } | { ok: false; errors: string[] };

interface Parsed {
  /** The id each statement gets: its `@id` annotation, else `policy<n>` in order. */
  statements: { id: string; text: string; meta: PolicyMeta }[];
}

type ParseResult = { ok: true; parsed: Parsed } | { ok: false; errors: string[] };

function describe(error: cedar.DetailedError): string {
  return error.help ? `${error.message} (${error.help})` : error.message;
}

/** Splits a policy into its statements, with their ids and effects; refuses templates and the limits. */
function parse(text: string): ParseResult {
  if (new TextEncoder().encode(text).length > MAX_POLICY_BYTES)
    return { ok: false, errors: [`a policy may hold at most ${MAX_POLICY_BYTES} bytes`] };
  const shape = shapeError(text);
  if (shape) return { ok: false, errors: [shape] };
  const parts = withCedar((cedar) => cedar.policySetTextToParts(text));
  if (parts.type === "failure") return { ok: false, errors: parts.errors.map(describe) };
  if (parts.policy_templates.length > 0)
    return { ok: false, errors: ["templates (policies with ?principal or ?resource slots) are not supported"] };
  if (parts.policies.length > MAX_POLICY_STATEMENTS)
    return {
      ok: false,
      errors: [`a policy may hold at most ${MAX_POLICY_STATEMENTS} statements; this one holds ${parts.policies.length}`],
    };
  const errors: string[] = [];
  const seen = new Set<string>();
  const statements = parts.policies.map((policy, index) => {
    const json = withCedar((cedar) => cedar.policyToJson(policy));
    const annotations = json.type === "success" ? (json.json.annotations ?? {}) : {};
    const effect = json.type === "success" ? json.json.effect : "permit";
    const id = annotations.id ?? `policy${index}`;
    if (seen.has(id)) errors.push(`two statements have the id "${id}"`);
    seen.add(id);
    const requireApproval = "require_approval" in annotations;
    if (requireApproval && effect === "forbid") errors.push(`statement "${id}": @require_approval applies to permit statements only`);
    return { id, text: policy, meta: { effect, requireApproval } };
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, parsed: { statements } };
}

/** Parses a policy and validates it against the schema; the validator's messages when it fails. */
export function checkPolicy(text: string): PolicyCheck {
  try {
    return checkText(text);
  } catch (error) {
    if (error instanceof CedarTrap) return { ok: false, errors: ["the policy is too complex for the engine to check; simplify it"] };
    throw error;
  }
}

function checkText(text: string): PolicyCheck {
  const parsed = parse(text);
  if (!parsed.ok) return parsed;
  const answer = withCedar((cedar) =>
    cedar.validate({ schema: CEDAR_SCHEMA, policies: { staticPolicies: text }, validationSettings: { mode: "strict" } }),
  );
  if (answer.type === "failure") return { ok: false, errors: answer.errors.map(describe) };
  if (answer.validationErrors.length > 0) return { ok: false, errors: answer.validationErrors.map((e) => describe(e.error)) };
  return { ok: true, statements: parsed.parsed.statements.length };
}

/** The policies that judge a call: the tenant's and the agent version's, either absent. */
export interface PolicySources {
  tenant: string | null;
  agent: string | null;
}

interface Compiled {
  slot: string;
  meta: Map<string, PolicyMeta>;
}

/** Compiled sets by their sources, least recently used first. */
const compiled = new Map<string, Compiled>();
let nextSlot = 0;

function compile(sources: PolicySources): Compiled {
  const key = `${sources.tenant ?? ""}\u0000${sources.agent ?? ""}`;
  const hit = compiled.get(key);
  if (hit) {
    compiled.delete(key);
    compiled.set(key, hit);
    return hit;
  }
  const meta = new Map<string, PolicyMeta>([[DEFAULT_PERMIT_ID, { effect: "permit", requireApproval: false }]]);
  const texts: Record<string, string> = { [DEFAULT_PERMIT_ID]: DEFAULT_PERMIT };
  for (const [origin, text] of [
    ["tenant", sources.tenant],
    ["agent", sources.agent],
  ] as const) {
    if (text === null) continue;
    const parsed = parse(text);
    // Stored policies were checked when they were saved; one that no longer parses judges nothing.
    if (!parsed.ok) throw new Error(`the ${origin} policy does not parse: ${parsed.errors.join("; ")}`);
    for (const statement of parsed.parsed.statements) {
      texts[`${origin}.${statement.id}`] = statement.text;
      meta.set(`${origin}.${statement.id}`, statement.meta);
    }
  }
  let slot: string;
  if (compiled.size >= COMPILED_SLOTS) {
    const [oldest, entry] = compiled.entries().next().value!;
    compiled.delete(oldest);
    slot = entry.slot;
  } else {
    slot = `set${nextSlot++}`;
  }
  const answer = withCedar((cedar) => cedar.preparsePolicySet(slot, { staticPolicies: texts }));
  if (answer.type === "failure") throw new Error(`the policies do not parse: ${answer.errors.map(describe).join("; ")}`);
  const entry = { slot, meta };
  compiled.set(key, entry);
  return entry;
}

/** Judges one call; no policy at all allows it, as before policies existed. */
export function judge(sources: PolicySources, request: PolicyRequest): PolicyDecision {
  if (sources.tenant === null && sources.agent === null) return { decision: "allow", policy_ids: [], errors: [] };
  const set = compile(sources);
  const call = cedarRequest(request);
  const answer = withCedar((cedar) =>
    cedar.statefulIsAuthorized({ ...call, preparsedPolicySetId: set.slot } as cedar.StatefulAuthorizationCall),
  );
  if (answer.type === "failure") return { decision: "deny", policy_ids: [], errors: answer.errors.map(describe) };
  const { decision, diagnostics } = answer.response;
  return decisionOf(
    { decision, reason: diagnostics.reason, errors: diagnostics.errors.map((e) => ({ policyId: e.policyId, message: describe(e.error) })) },
    set.meta,
  );
}
