/**
 * The memory tools a session with a `memory` grant is offered: `memory_search` and `memory_get`
 * over the namespaces it reads, `memory_put` and `memory_delete` over those it writes. A model can
 * never leave its grant: a namespace it names is parsed into segments, checked like every
 * namespace (`namespaceProblem`) and must lie within a granted one segment by segment
 * (`grantAllows`); anything else is an error result, and no store is asked. Keys and values are
 * checked with the routes' own field schemas.
 */
import { MAX_KEY_CHARS, MAX_QUERY_CHARS } from "../../../../memory/bounds";
import {
  grantAllows,
  joinNamespace,
  MAX_NAMESPACE_SEGMENTS,
  type MemoryGrant,
  namespaceProblem,
} from "../../../../session-config/memory-namespace";
import { MemoryKeySchema, MemoryValueSchema } from "../../../../memory/schemas";
import { endUserWrites, memoryReachOf } from "../../../../memory/end-user";
import type { MemoryItem, MemoryResult, ScoredItem } from "../../../../memory/types";
import type { Tool, ToolContext, ToolOutcome } from "../tool";

export const MEMORY_TOOL_NAMES: readonly string[] = ["memory_search", "memory_get", "memory_put", "memory_delete"];
/** Results one search gives the model: enough to choose from, few enough for its context. */
export const MAX_TOOL_SEARCH_RESULTS = 20;
const DEFAULT_TOOL_SEARCH_RESULTS = 5;

const NAMESPACE_INPUT = {
  type: "array",
  items: { type: "string" },
  minItems: 1,
  maxItems: MAX_NAMESPACE_SEGMENTS,
} as const;

const KEY_INPUT = { type: "string", minLength: 1, maxLength: MAX_KEY_CHARS, description: "The item's key, e.g. `preferences`." } as const;

function listed(namespaces: readonly string[][]): string {
  return namespaces.map((namespace) => JSON.stringify(namespace)).join(", ");
}

/** The memory tools for `grant`: the two readers always, the two writers when it writes anywhere. */
export function memoryTools(grant: MemoryGrant): [string, Tool][] {
  const reads = listed(grant.namespaces);
  const tools: [string, Tool][] = [
    [
      "memory_search",
      builtin({
        name: "memory_search",
        description:
          "Searches long-term memory (kept across conversations) by words, best match first. " +
          `Searches every namespace you may read (${reads}) unless \`namespace\` names one of them or one below.`,
        input_schema: {
          type: "object",
          properties: {
            query: { type: "string", minLength: 1, maxLength: MAX_QUERY_CHARS, description: "Words to look for." },
            namespace: { ...NAMESPACE_INPUT, description: `Only this namespace and below; one of ${reads} or below.` },
            limit: {
              type: "integer",
              minimum: 1,
              maximum: MAX_TOOL_SEARCH_RESULTS,
              description: `At most this many results (${DEFAULT_TOOL_SEARCH_RESULTS} by default).`,
            },
          },
          required: ["query"],
          additionalProperties: false,
        },
        run: (input, ctx) => search(grant, input as SearchArgs, ctx),
      }),
    ],
    [
      "memory_get",
      builtin({
        name: "memory_get",
        description: `Reads one item of long-term memory by its key. \`namespace\` is ${JSON.stringify(grant.namespaces[0])} unless given (any of ${reads} or below).`,
        input_schema: {
          type: "object",
          properties: { key: KEY_INPUT, namespace: NAMESPACE_INPUT },
          required: ["key"],
          additionalProperties: false,
        },
        run: (input, ctx) => get(grant, input as KeyArgs, ctx),
      }),
    ],
  ];
  if (grant.write.length === 0) return tools;
  const writes = listed(grant.write);
  tools.push(
    [
      "memory_put",
      builtin({
        name: "memory_put",
        description:
          "Saves an item in long-term memory, where later conversations can find it; saving an existing key replaces its value. " +
          `\`namespace\` is ${JSON.stringify(grant.write[0])} unless given (any of ${writes} or below).`,
        input_schema: {
          type: "object",
          properties: {
            key: KEY_INPUT,
            value: { type: "object", description: 'A JSON object, e.g. {"language": "French"}; its text is what search finds.' },
            namespace: NAMESPACE_INPUT,
          },
          required: ["key", "value"],
          additionalProperties: false,
        },
        run: (input, ctx) => put(grant, input as PutArgs, ctx),
      }),
    ],
    [
      "memory_delete",
      builtin({
        name: "memory_delete",
        description: `Deletes an item of long-term memory. \`namespace\` is ${JSON.stringify(grant.write[0])} unless given (any of ${writes} or below).`,
        input_schema: {
          type: "object",
          properties: { key: KEY_INPUT, namespace: NAMESPACE_INPUT },
          required: ["key"],
          additionalProperties: false,
        },
        run: (input, ctx) => remove(grant, input as KeyArgs, ctx),
      }),
    ],
  );
  return tools;
}

function builtin(spec: { name: string; description: string; input_schema: Record<string, unknown>; run: Tool["run"] }): Tool {
  // A repeat after a restart writes the same value again (one more version) or deletes nothing:
  // harmless, so every memory tool may run again.
  return {
    kind: "builtin",
    requiresApproval: false,
    atMostOnce: false,
    definition: { name: spec.name, description: spec.description, input_schema: spec.input_schema },
    run: spec.run,
  };
}

interface SearchArgs {
  query: string;
  namespace?: unknown;
  limit?: number;
}
interface KeyArgs {
  key: string;
  namespace?: unknown;
}
interface PutArgs extends KeyArgs {
  value: unknown;
}

const fail = (output: string): ToolOutcome => ({ output, isError: true });
const answer = (value: unknown): ToolOutcome => ({ output: JSON.stringify(value), isError: false });

/**
 * The namespace a call may use, or the error the model gets: absent is `fallback`; given, it must
 * be a namespace (1-4 valid segments, so no `..`, empty, encoded or non-ASCII segment) within one
 * the grant gives for `access`.
 */
function allowedNamespace(
  grant: MemoryGrant,
  given: unknown,
  fallback: string[] | undefined,
  access: "read" | "write",
): { ok: true; namespace: string[] } | { ok: false; outcome: ToolOutcome } {
  if (given === undefined)
    return fallback ? { ok: true, namespace: fallback } : { ok: false, outcome: fail("This session may not write memory.") };
  const problem = namespaceProblem(given);
  if (problem !== null) return { ok: false, outcome: fail(`namespace: ${problem}`) };
  const namespace = given as string[];
  if (!grantAllows(grant, namespace, access)) {
    const allowed = listed(access === "read" ? grant.namespaces : grant.write);
    return {
      ok: false,
      outcome: fail(`The namespace ${JSON.stringify(namespace)} is outside this session's memory; it may ${access} ${allowed} and below.`),
    };
  }
  return { ok: true, namespace };
}

function checkedKey(key: unknown): string | ToolOutcome {
  const parsed = MemoryKeySchema.safeParse(key);
  return parsed.success ? parsed.data : fail(`key: ${parsed.error.issues[0]?.message ?? "not a key"}`);
}

function notFound(namespace: string[], key: string): ToolOutcome {
  return fail(`No memory item "${key}" in ${joinNamespace(namespace)}.`);
}

function shown(item: MemoryItem | ScoredItem): Record<string, unknown> {
  return {
    namespace: item.namespace,
    key: item.key,
    value: item.value,
    updated_at: item.updated_at,
    ...("score" in item && item.score !== null ? { score: item.score } : {}),
  };
}

async function search(grant: MemoryGrant, args: SearchArgs, ctx: ToolContext): Promise<ToolOutcome> {
  let prefixes = grant.namespaces;
  if (args.namespace !== undefined) {
    const allowed = allowedNamespace(grant, args.namespace, undefined, "read");
    if (!allowed.ok) return allowed.outcome;
    prefixes = [allowed.namespace];
  }
  const results = (await ctx.memory().store.search(ctx.tenantId, {
    prefixes,
    query: args.query,
    filter: {},
    limit: Math.min(args.limit ?? DEFAULT_TOOL_SEARCH_RESULTS, MAX_TOOL_SEARCH_RESULTS),
    offset: 0,
    now: Date.now(),
  })) as MemoryResult<ScoredItem[]>;
  // A query without a filter or an offset reads no more than its page: this is never refused.
  if (!results.ok) return fail("The search found too few matches within what it may read; use more precise words.");
  return answer({ results: results.value.map(shown) });
}

async function get(grant: MemoryGrant, args: KeyArgs, ctx: ToolContext): Promise<ToolOutcome> {
  const allowed = allowedNamespace(grant, args.namespace, grant.namespaces[0], "read");
  if (!allowed.ok) return allowed.outcome;
  const key = checkedKey(args.key);
  if (typeof key !== "string") return key;
  const result = (await ctx.memory().store.get(ctx.tenantId, allowed.namespace, key, Date.now())) as MemoryResult<MemoryItem>;
  return result.ok ? answer(shown(result.value)) : notFound(allowed.namespace, key);
}

async function put(grant: MemoryGrant, args: PutArgs, ctx: ToolContext): Promise<ToolOutcome> {
  const allowed = allowedNamespace(grant, args.namespace, grant.write[0], "write");
  if (!allowed.ok) return allowed.outcome;
  const key = checkedKey(args.key);
  if (typeof key !== "string") return key;
  const value = MemoryValueSchema.safeParse(args.value);
  if (!value.success) return fail(`value: ${value.error.issues[0]?.message ?? "not a JSON object"}`);
  const memory = ctx.memory();
  const result = (await memory.store.put(ctx.tenantId, {
    namespace: allowed.namespace,
    key,
    value: value.data,
    ttlSeconds: null,
    refreshTtl: false,
    createdBy: `session:${ctx.sessionId}`,
    maxItems: memory.maxItems,
    maxBytes: memory.maxBytes,
    within: endUserWrites(memoryReachOf(ctx.createdBy)),
    now: Date.now(),
  })) as MemoryResult<MemoryItem>;
  if (!result.ok)
    return fail(
      result.reason !== "limit_reached"
        ? "Nothing was saved."
        : result.of === "bytes"
          ? `Memory is full (${result.max} bytes); nothing was saved.`
          : `Memory is full (${result.max} items); nothing was saved.`,
    );
  return answer({ saved: { namespace: result.value.namespace, key: result.value.key, version: result.value.version } });
}

async function remove(grant: MemoryGrant, args: KeyArgs, ctx: ToolContext): Promise<ToolOutcome> {
  const allowed = allowedNamespace(grant, args.namespace, grant.write[0], "write");
  if (!allowed.ok) return allowed.outcome;
  const key = checkedKey(args.key);
  if (typeof key !== "string") return key;
  const result = await ctx.memory().store.remove(ctx.tenantId, allowed.namespace, key, Date.now());
  return result.ok ? answer({ deleted: { namespace: allowed.namespace, key } }) : notFound(allowed.namespace, key);
}
