/**
 * The typed client of a tenant's memory store, for the gateway and for sessions' memory tools:
 * each answer becomes its value or its problem, in one switch (`memoryProblem`).
 */
import type { AuditContext } from "../audit/types";
import type { Env } from "../env";
import { memoryStoreStub } from "../objects";
import { ApiError } from "../problems";
import { endUserWrites, reachAllows } from "./end-user";
import { isWithin } from "../session-config/memory-namespace";
import type {
  MemoryFailure,
  MemoryItem,
  MemoryResult,
  MemoryVersion,
  NamespaceListInput,
  NamespacePage,
  PutItem,
  ScoredItem,
  SearchInput,
} from "./types";

export const ITEM_NOT_FOUND = "No such memory item.";
export const OUTSIDE_REACH = "An end user's memory is users.<subject> and below; this namespace is outside it.";

export function memoryProblem(failure: MemoryFailure): ApiError {
  switch (failure.reason) {
    case "scan_exceeded":
      return new ApiError(
        "bad_request",
        failure.by === "filter"
          ? `This search reads at most ${failure.max} items, and its filter matched too few of them to fill the page: narrow namespace_prefix, add words to the query, or ask for an earlier page.`
          : `This search reads at most ${failure.max} items, and its offset lies past them: narrow namespace_prefix or add words to the query.`,
      );
    case "item_not_found":
      return new ApiError("not_found", ITEM_NOT_FOUND);
    case "limit_reached":
      if (failure.of === "bytes")
        return new ApiError(
          "conflict",
          `The tenant's memory takes ${failure.used} bytes of its max_memory_bytes (${failure.max}); this item would take ${failure.needed}. Delete items first.`,
        );
      if (failure.of === "end_user")
        return new ApiError("conflict", `An end user keeps at most ${failure.max} memory items; delete some first.`);
      return new ApiError("conflict", `The tenant already keeps ${failure.max} memory items, its max_memory_items; delete some first.`);
  }
}

function value<T>(result: MemoryResult<T>): T {
  if (result.ok) return result.value;
  throw memoryProblem(result);
}

type Stub = ReturnType<typeof memoryStoreStub>;

export class MemoryClient {
  readonly #stub: Stub;
  readonly #tenantId: string;
  /** Where the caller may reach (`memoryReachOf`): undefined for anywhere in the tenant. */
  readonly #reach: string[] | null | undefined;

  constructor(env: Env, tenantId: string, reach?: string[] | null) {
    this.#stub = memoryStoreStub(env, tenantId);
    this.#tenantId = tenantId;
    this.#reach = reach;
  }

  async put(input: PutItem): Promise<MemoryItem> {
    this.#within(input.namespace);
    const within = endUserWrites(this.#reach);
    return value((await this.#stub.put(this.#tenantId, within ? { ...input, within } : input)) as MemoryResult<MemoryItem>);
  }

  async get(namespace: string[], key: string, now: number): Promise<MemoryItem> {
    this.#within(namespace);
    return value((await this.#stub.get(this.#tenantId, namespace, key, now)) as MemoryResult<MemoryItem>);
  }

  async remove(namespace: string[], key: string, now: number, by?: AuditContext): Promise<void> {
    this.#within(namespace);
    value(await this.#stub.remove(this.#tenantId, namespace, key, now, by));
  }

  async versions(namespace: string[], key: string, now: number): Promise<MemoryVersion[]> {
    this.#within(namespace);
    return value((await this.#stub.versions(this.#tenantId, namespace, key, now)) as MemoryResult<MemoryVersion[]>);
  }

  /** A prefix above the caller's reach searches the reach only; one beside it is refused. */
  async search(input: SearchInput): Promise<ScoredItem[]> {
    return value(
      (await this.#stub.search(this.#tenantId, {
        ...input,
        prefixes: input.prefixes.map((prefix) => this.#narrowed(prefix)),
      })) as MemoryResult<ScoredItem[]>,
    );
  }

  async namespaces(input: NamespaceListInput): Promise<NamespacePage> {
    return (await this.#stub.namespaces(this.#tenantId, { ...input, prefix: this.#narrowed(input.prefix) })) as NamespacePage;
  }

  #within(namespace: readonly string[]): void {
    if (!reachAllows(this.#reach, namespace)) throw new ApiError("forbidden", OUTSIDE_REACH);
  }

  #narrowed(prefix: string[]): string[] {
    const reach = this.#reach;
    if (reach && isWithin(reach, prefix)) return reach;
    this.#within(prefix);
    return prefix;
  }
}
