/** The memory client of a request: the caller's tenant, and for an end user its own reach only (memory/end-user.ts). */
import { memoryReachOf } from "../../memory/end-user";
import { MemoryClient } from "../../memory/client";
import type { AppContext } from "../context";

export function memoryOf(c: AppContext): MemoryClient {
  const principal = c.var.principal;
  return new MemoryClient(c.env, principal.tenantId, memoryReachOf(principal.subject));
}
