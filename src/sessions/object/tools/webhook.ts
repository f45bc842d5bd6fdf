/**
 * Webhook tools: the platform POSTs `{ tenant_id, session_id, created_by, tool_call_id, name,
 * url, input }` to the tenant's URL, signed, with an idempotency key. The signed body says whom
 * the call is for, so a receiver can authorize it rather than trust any signed call. Idempotent
 * webhooks are retried on 5xx and network errors within the unit; at-most-once ones are sent
 * once and never retried.
 */
import type { ToolSpec } from "../../../session-config/types";
import { safeFetch, type SafeFetchResult } from "../../../egress/safe-fetch";
import { describeCredentialFailure, NO_VAULT, sendWithCredential, type CredentialAuth } from "../../../egress/credential-fetch";
import { FORBIDDEN_CREDENTIAL_HEADERS } from "../../../egress/credential-header";
import type { EgressCredential } from "../../../egress/credentials";
import { headerSecrets } from "../../../session-config/masking";
import type { Tool, ToolContext, ToolOutcome } from "./tool";
import { IDEMPOTENCY_HEADER, SIGNATURE_HEADER, signCallBody, TIMESTAMP_HEADER } from "../../../egress/call-signature";
import { checkAllowedTenantUrl } from "../../../egress/tenant-url";
import { markAtMostOnce } from "./at-most-once";
import { linearDelay, retrying, type Attempt, type RetryPolicy } from "../../../shared/retry";

export const WEBHOOK_TIMEOUT_MS = 30_000;
/** A webhook's answer is read up to this size; the output is then cut to the tenant's limit. */
export const WEBHOOK_MAX_RESPONSE_BYTES = 1024 * 1024;
/** Tries in all for an idempotent webhook within one unit. */
export const WEBHOOK_ATTEMPTS = 3;
const WEBHOOK_RETRY: RetryPolicy = { maxAttempts: WEBHOOK_ATTEMPTS, delayMs: linearDelay(500) };

type WebhookSpec = Extract<ToolSpec, { type: "webhook" }>;

export function webhookTool(spec: WebhookSpec): Tool {
  const atMostOnce = spec.at_most_once === true;
  return {
    kind: "webhook",
    requiresApproval: spec.requires_approval === true,
    ...(spec.trust ? { trust: spec.trust } : {}),
    atMostOnce,
    definition: { name: spec.name, description: spec.description, input_schema: spec.input_schema },
    run: (input, ctx) => callWebhook(spec, atMostOnce, input, ctx),
  };
}

/** The signed body: whom the call is for (tenant, session, creator), which tool and URL, and the input. */
export function webhookBody(
  spec: WebhookSpec,
  url: string,
  input: unknown,
  ctx: Pick<ToolContext, "tenantId" | "sessionId" | "createdBy" | "toolCallId">,
): string {
  return JSON.stringify({
    tenant_id: ctx.tenantId,
    session_id: ctx.sessionId,
    created_by: ctx.createdBy,
    tool_call_id: ctx.toolCallId,
    name: spec.name,
    url,
    input,
  });
}

async function callWebhook(spec: WebhookSpec, atMostOnce: boolean, input: unknown, ctx: ToolContext): Promise<ToolOutcome> {
  // Parsed again, as at creation: a URL stored before it was normalized is read the same way.
  const signing = await ctx.callSigning();
  const target = checkAllowedTenantUrl(spec.url, { allowPrivateUrls: ctx.allowPrivateUrls, origins: signing.webhook_origins });
  if (!target.ok) return { output: `refused: ${target.message}`, isError: true };
  const url = target.url.href;
  const body = webhookBody(spec, url, input, ctx);
  const notCalled: ToolOutcome = { output: "webhook was not called", isError: true };
  const auth = credentialAuth(spec, ctx);
  return retrying(markAtMostOnce(atMostOnce).tries(WEBHOOK_RETRY), ctx.signal, notCalled, () => postOnce(url, body, signing, auth, ctx));
}

/** The credential the tool names and where to find it; a session without a vault reads it as unavailable. */
function credentialAuth(spec: WebhookSpec, ctx: ToolContext): CredentialAuth | undefined {
  if (!spec.auth) return undefined;
  return { name: spec.auth.credential, source: ctx.credentials ?? NO_VAULT };
}

/** One signed POST; a timeout, a network error or a 5xx may pass, any other answer is final. */
async function postOnce(
  url: string,
  body: string,
  signing: Awaited<ReturnType<ToolContext["callSigning"]>>,
  auth: CredentialAuth | undefined,
  ctx: ToolContext,
): Promise<Attempt<ToolOutcome>> {
  let carried: EgressCredential | undefined;
  const sent = await sendWithCredential(
    auth,
    async (credential): Promise<SafeFetchResult> => {
      carried = credential;
      if (credential && FORBIDDEN_CREDENTIAL_HEADERS.has(credential.header.toLowerCase())) {
        return {
          ok: false,
          reason: "invalid_request",
          detail: `the credential "${credential.name}" names ${credential.header}, which the platform sets`,
        };
      }
      // A fresh timestamp and signature per try, so a retry is not refused as stale.
      const timestamp = Math.floor(Date.now() / 1000);
      return safeFetch(
        url,
        {
          method: "POST",
          headers: {
            "content-type": "application/json",
            [IDEMPOTENCY_HEADER]: ctx.idempotencyKey,
            ...(ctx.traceparent ? { traceparent: ctx.traceparent } : {}),
            [TIMESTAMP_HEADER]: String(timestamp),
            [SIGNATURE_HEADER]: await signCallBody(signing.secrets, timestamp, body),
          },
          body,
          signal: ctx.signal,
          ...(credential ? { credential } : {}),
        },
        {
          allowPrivate: ctx.allowPrivateUrls,
          timeoutMs: WEBHOOK_TIMEOUT_MS,
          maxBytes: WEBHOOK_MAX_RESPONSE_BYTES,
          maxRedirects: 0,
          textOnly: true,
        },
      );
    },
    (result) => (result.ok ? result : null),
  );
  // A credential that cannot be used is final: another try would meet the same vault.
  if (!sent.ok)
    return { done: false, value: { output: describeCredentialFailure(sent), isError: true, credentialFailure: sent }, transient: false };
  const result =
    sent.result.ok && sent.result.truncated && sent.result.credentialSent && carried ? cutEcho(sent.result, carried) : sent.result;
  if (result.ok && result.status >= 200 && result.status < 300) return { done: true, value: parseWebhookAnswer(result.body) };
  if (result.ok) {
    return {
      done: false,
      value: { output: `webhook answered ${result.status}: ${result.body}`, isError: true },
      transient: result.status >= 500,
    };
  }
  // Only a timeout or a network error may be passing; a refusal or a bad answer is not.
  const transient = result.reason === "timeout" || result.reason === "network_error";
  return { done: false, value: { output: `webhook call failed (${result.reason}): ${result.detail}`, isError: true }, transient };
}

/**
 * An answer cut at the size cap may end with the first characters of the credential it echoes,
 * too few for the masker to know: a tail that begins any form of the value is dropped.
 */
function cutEcho<R extends { body: string }>(result: R, credential: EgressCredential): R {
  const body = result.body;
  const forms = headerSecrets({ value: credential.value }).filter((form) => form !== "");
  const longest = Math.max(0, ...forms.map((form) => form.length));
  for (let at = Math.max(0, body.length - longest + 1); at < body.length; at++) {
    const first = body.charCodeAt(at);
    if (forms.some((form) => form.charCodeAt(0) === first && form.startsWith(body.slice(at))))
      return { ...result, body: body.slice(0, at) };
  }
  return result;
}

/** `{ "output": ..., "is_error"?: boolean }` is the documented answer; any other body is taken as the output text. */
function parseWebhookAnswer(text: string): ToolOutcome {
  try {
    const json = JSON.parse(text) as { output?: unknown; is_error?: unknown };
    if (json && typeof json === "object" && "output" in json) {
      const output = typeof json.output === "string" ? json.output : JSON.stringify(json.output);
      return { output, isError: json.is_error === true };
    }
  } catch {
    // not JSON: the body itself is the output
  }
  return { output: text, isError: false };
}
