/** The tenant index's idempotency calls: each input checked (../idempotency-store.ts), then one statement or transaction. */
import * as store from "../idempotency-store";
import type * as T from "../types";
import type { IndexHost } from "./host";

export function beginIdempotent(host: IndexHost, input: T.BeginIdempotentInput): T.IdempotencyBegin {
  const checked = store.parseBeginIdempotent(input);
  return host.transaction(() => store.beginIdempotent(host.sql, checked));
}

export function completeIdempotent(host: IndexHost, input: T.CompleteIdempotentInput): boolean {
  return store.completeIdempotent(host.sql, store.parseCompleteIdempotent(input));
}

export function releaseIdempotent(host: IndexHost, input: T.ReleaseIdempotentInput): boolean {
  return store.releaseIdempotent(host.sql, store.parseReleaseIdempotent(input));
}
