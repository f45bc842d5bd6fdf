/**
 * A tenant's tool policy (`PUT /v1/tenant/policy`): its Cedar text, checked against the schema
 * by the gateway before it comes here, kept as one key-value entry with a version that grows by
 * one with each change, so a session object asks for the text only when its copy is stale.
 */
import { MAX_POLICY_BYTES } from "../policy/schema";

const POLICY_KEY = "tool_policy";

export interface TenantPolicy {
  cedar: string;
  /** 1 for the first policy; each change (a delete included) adds one. */
  version: number;
  updated_at: string;
}

/** What a session object is answered: the version, and the text unless it already holds that version. */
export interface PolicyAnswer {
  version: number;
  /** Absent when the caller's version is current; null when the tenant has no policy. */
  cedar?: string | null;
}

interface Stored {
  cedar: string | null;
  version: number;
  updated_at: string;
}

function read(kv: SyncKvStorage): Stored | undefined {
  return kv.get<Stored>(POLICY_KEY);
}

export function readPolicy(kv: SyncKvStorage): TenantPolicy | null {
  const stored = read(kv);
  return stored?.cedar != null ? { cedar: stored.cedar, version: stored.version, updated_at: stored.updated_at } : null;
}

/** Sets (a text) or removes (null) the policy; the version it now has. */
export function writePolicy(kv: SyncKvStorage, cedar: string | null, now: string): number {
  const version = (read(kv)?.version ?? 0) + 1;
  kv.put(POLICY_KEY, { cedar, version, updated_at: now } satisfies Stored);
  return version;
}

/** The policy's current version (0: none ever set), which each report's answer carries. */
export function policyVersion(kv: SyncKvStorage): number {
  return read(kv)?.version ?? 0;
}

export function policyAnswer(kv: SyncKvStorage, known: number | null): PolicyAnswer {
  const stored = read(kv);
  const version = stored?.version ?? 0;
  return known === version ? { version } : { version, cedar: stored?.cedar ?? null };
}

/** The shape check of the RPC boundary: the gateway validated the text against the schema. */
export function parsePolicyText(value: unknown): string {
  if (typeof value !== "string" || value.length === 0 || new TextEncoder().encode(value).length > MAX_POLICY_BYTES)
    throw new TypeError(`cedar must be a non-empty text of at most ${MAX_POLICY_BYTES} bytes`);
  return value;
}
