/**
 * An end user's memory: `users.<subject>` and below, whatever a request or a model names. The
 * one rule both doors apply: the memory routes (`MemoryClient` given an end user's reach) and
 * the memory tools of a session an end user created (its grant confined by its `created_by`,
 * which the session object keeps for its life). Pure.
 */
import { endUserOf } from "../auth/principal";
import { isWithin, type MemoryGrant, type Namespace, SEGMENT_PATTERN } from "../session-config/memory-namespace";

/** The first segment of every end user's memory. */
export const END_USER_MEMORY_ROOT = "users";

/**
 * Where an end user's memory lives: `["users", <subject>]`. A subject that is not a namespace
 * segment (it holds `.`, or is longer than 64 characters) has none: writing it as several
 * segments would put one user's memory inside another's (`users.a` holds `users.a.b`).
 */
export function endUserNamespace(subject: string): string[] | null {
  return SEGMENT_PATTERN.test(subject) ? [END_USER_MEMORY_ROOT, subject] : null;
}

/**
 * The memory a principal or session creator may reach: `undefined` for no confinement (anyone
 * but an end user), `null` for none at all, else the end user's own namespace.
 */
export function memoryReachOf(createdBy: string): string[] | null | undefined {
  const subject = endUserOf(createdBy);
  return subject === null ? undefined : endUserNamespace(subject);
}

/**
 * `grant` within `reach`: a namespace inside it stays, one that contains it becomes the reach
 * itself, any other goes. Null when nothing is left to read.
 */
export function confineGrant(grant: MemoryGrant | null, reach: string[] | null | undefined): MemoryGrant | null {
  if (grant === null || reach === undefined) return grant;
  if (reach === null) return null;
  const narrow = (list: readonly string[][]) =>
    dedupe(list.flatMap((ns) => (isWithin(ns, reach) ? [ns] : isWithin(reach, ns) ? [reach] : [])));
  const namespaces = narrow(grant.namespaces);
  if (namespaces.length === 0) return null;
  return { namespaces, write: narrow(grant.write) };
}

/**
 * Items one end user may keep under `users.<subject>`: without it one user's page could fill the
 * tenant's `max_memory_items` (100,000 by default) and leave every other user's memory unwritable.
 */
export const MAX_END_USER_MEMORY_ITEMS = 1_000;

/** What a write within `reach` is held to: an end user's count, or nothing (`undefined`) for anyone else. */
export function endUserWrites(reach: string[] | null | undefined): { prefix: string[]; max: number } | undefined {
  return reach ? { prefix: reach, max: MAX_END_USER_MEMORY_ITEMS } : undefined;
}

/** Whether a namespace (or a search prefix) lies within `reach` (`undefined`: anywhere). */
export function reachAllows(reach: string[] | null | undefined, namespace: Namespace): boolean {
  if (reach === undefined) return true;
  return reach !== null && isWithin(namespace, reach);
}

function dedupe(list: string[][]): string[][] {
  const seen = new Set<string>();
  return list.filter((ns) => {
    const key = JSON.stringify(ns);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
