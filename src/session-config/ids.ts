/**
 * Session and tool-call ids as the API accepts them. A session id is `ses_` plus random
 * url-safe characters; anything else is answered like an unknown session, never looked up.
 */
import { base64url } from "../shared/base64";

export const SESSION_ID_PREFIX = "ses_";
/** 18 random bytes: 144 bits, so ids cannot be guessed and never collide in practice. */
export const SESSION_ID_RANDOM_BYTES = 18;
/** Ids made elsewhere (tests, imports) may be longer; the cap bounds what reaches a Durable Object name. */
export const MAX_SESSION_ID_CHARS = 80;
export const SESSION_ID_PATTERN = /^ses_[A-Za-z0-9_-]{24,76}$/;

/** Providers' tool_use ids (`toolu_…`, `call_…`); the cap keeps a path segment from growing without end. */
export const MAX_TOOL_CALL_ID_CHARS = 128;
export const TOOL_CALL_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

export function newSessionId(): string {
  return SESSION_ID_PREFIX + base64url(crypto.getRandomValues(new Uint8Array(SESSION_ID_RANDOM_BYTES)));
}

export function isSessionId(value: string): boolean {
  return value.length <= MAX_SESSION_ID_CHARS && SESSION_ID_PATTERN.test(value);
}

export function isToolCallId(value: string): boolean {
  return TOOL_CALL_ID_PATTERN.test(value);
}

/**
 * The id of the child session an `agent` tool call starts: derived from the parent's id and the
 * call's, so a retry or a restart that starts it again names the same session and never makes two.
 */
export async function childSessionId(parentId: string, toolCallId: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`subagent:${parentId}:${toolCallId}`));
  return SESSION_ID_PREFIX + base64url(new Uint8Array(digest)).slice(0, 32);
}
