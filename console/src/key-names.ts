/**
 * Who created a session, as a person reads it: an API key's subject (`key:key_…`) shown as the
 * key's name, an end user's (`end_user:<subject>`) as its subject. Tenant admins may list the
 * keys; for anyone else a key's subject stays as it is.
 */
import type { Api } from "./api";

/** A tenant rarely has more; past this, the rest show by id. */
const MAX_KEY_PAGES = 5;
const KEY_SUBJECT = /^key:(key_[A-Za-z0-9]+)$/;
/** The principal of an end-user token names its subject after this (docs/authentication.md). */
export const END_USER_PREFIX = "end_user:";

/** A key's name by its id: a plain object, so a poll that compares answers as JSON sees a new key. */
export type KeyNames = Readonly<Record<string, string>>;

/** Every key's name by its id (revoked keys too: their sessions stay). */
export async function readKeyNames(api: Api): Promise<KeyNames> {
  const names: Record<string, string> = {};
  let cursor: string | undefined;
  for (let page = 0; page < MAX_KEY_PAGES; page++) {
    const answer = await api.call((client) =>
      client.GET("/v1/api-keys", { params: { query: { limit: 200, ...(cursor ? { cursor } : {}) } } }),
    );
    for (const key of answer.data) names[key.id] = key.name;
    if (!answer.next_cursor) break;
    cursor = answer.next_cursor;
  }
  return names;
}

/** Whether `subject` is an API key's (`key:key_…`). Pure. */
export function isKeySubject(subject: string): boolean {
  return KEY_SUBJECT.test(subject);
}

/** `subject`'s key name when it is a known key's subject; else null. Pure. */
export function keyNameOf(subject: string, names: KeyNames): string | null {
  const id = KEY_SUBJECT.exec(subject)?.[1];
  return id !== undefined && Object.hasOwn(names, id) ? (names[id] ?? null) : null;
}

/** The end user's own subject when `subject` is an end user's (`end_user:alice` → `alice`); else null. Pure. */
export function endUserOf(subject: string): string | null {
  return subject.startsWith(END_USER_PREFIX) && subject.length > END_USER_PREFIX.length ? subject.slice(END_USER_PREFIX.length) : null;
}
