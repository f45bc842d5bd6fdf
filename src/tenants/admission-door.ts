/**
 * Where the gateway asks for a request's admission: the tenant index, or, for a tenant whose
 * sessions are spread over shards, the shard of the current layout that the request's rate bucket
 * hashes to (shards/admission.ts), so no one object counts every request of the tenant. The
 * gateway learns a tenant's layout from the admissions it is given (`rememberLayout`); a request
 * of a tenant this isolate has not seen yet asks the index.
 */
import { tenantIndexStub, tenantShardStub } from "../objects";
import { type ShardLayout, shardFor, UNSHARDED } from "../shared/shard-layout";
import type * as T from "./types";

export interface AdmissionDoor {
  admitRequest(input: T.AdmitRequestInput): Promise<T.Admission>;
  admitApiKey(keyId: string, input: T.AdmitApiKeyInput): Promise<T.ApiKeyAdmission>;
  admitExchangedToken(keyId: string, input: T.AdmitRequestInput): Promise<T.ApiKeyAdmission>;
}

/** The layouts this isolate was last told, by tenant (a few thousand at most; all forgotten past that). */
const layouts = new Map<string, ShardLayout>();
const MAX_LAYOUTS = 5_000;

/** The layout an admission of the tenant carried: its next requests go where it says. */
export function rememberLayout(tenantId: string, layout: ShardLayout): void {
  if (layout.shards <= 1) {
    layouts.delete(tenantId);
    return;
  }
  if (layouts.size >= MAX_LAYOUTS && !layouts.has(tenantId)) layouts.clear();
  layouts.set(tenantId, layout);
}

export function admissionDoor(env: Cloudflare.Env, tenantId: string, bucket: string): AdmissionDoor {
  const ref = shardFor(bucket, layouts.get(tenantId) ?? UNSHARDED);
  if (ref === null) {
    const index = tenantIndexStub(env, tenantId);
    return {
      admitRequest: (input) => index.admitRequest(tenantId, input),
      admitApiKey: (keyId, input) => index.admitApiKey(tenantId, keyId, input),
      admitExchangedToken: (keyId, input) => index.admitExchangedToken(tenantId, keyId, input),
    };
  }
  const shard = tenantShardStub(env, tenantId, ref);
  return {
    admitRequest: (input) => shard.admitRequest(tenantId, ref, input),
    admitApiKey: (keyId, input) => shard.admitApiKey(tenantId, ref, keyId, input),
    admitExchangedToken: (keyId, input) => shard.admitExchangedToken(tenantId, ref, keyId, input),
  };
}
