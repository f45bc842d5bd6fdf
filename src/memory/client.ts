/**
 * The typed client of a tenant's memory store, for the gateway and for sessions' memory tools:
 * each answer becomes its value or its problem, in one switch (`memoryProblem`).
 */
import type { AuditContext } from "../audit/types";
import type { Env } from "../env";
import { memoryStoreStub } from "../objects";
import { ApiError } from "../problems";
import type { MemoryFailure, MemoryItem, MemoryResult, MemoryVersion, NamespaceListInput, NamespacePage, PutItem, ScoredItem, SearchInput } from "./types";

export const ITEM_NOT_FOUND = "No such memory item.";

export function memoryProblem(failure: MemoryFailure): ApiError {
  switch (failure.reason) {
    case "item_not_found":
      return new ApiError("not_found", ITEM_NOT_FOUND);
    case "limit_reached":
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

  constructor(env: Env, tenantId: string) {
    this.#stub = memoryStoreStub(env, tenantId);
    this.#tenantId = tenantId;
  }

  async put(input: PutItem): Promise<MemoryItem> {
    return value((await this.#stub.put(this.#tenantId, input)) as MemoryResult<MemoryItem>);
  }

  async get(namespace: string[], key: string, now: number): Promise<MemoryItem> {
    return value((await this.#stub.get(this.#tenantId, namespace, key, now)) as MemoryResult<MemoryItem>);
  }

  async remove(namespace: string[], key: string, now: number, by?: AuditContext): Promise<void> {
    value(await this.#stub.remove(this.#tenantId, namespace, key, now, by));
  }

  async versions(namespace: string[], key: string, now: number): Promise<MemoryVersion[]> {
    return value((await this.#stub.versions(this.#tenantId, namespace, key, now)) as MemoryResult<MemoryVersion[]>);
  }

  async search(input: SearchInput): Promise<ScoredItem[]> {
    return (await this.#stub.search(this.#tenantId, input)) as ScoredItem[];
  }

  async namespaces(input: NamespaceListInput): Promise<NamespacePage> {
    return (await this.#stub.namespaces(this.#tenantId, input)) as NamespacePage;
  }
}
