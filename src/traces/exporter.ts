/**
 * A session's trace export: the spans its units wrote to the trace outbox (in their own
 * transactions) go to the tenant's collector as OTLP/HTTP JSON, in batches, from the session
 * object. An export never holds up the loop: it runs beside it, one at a time, and the alarm
 * only comes back for it. A failed batch is tried again on the notifications' delivery schedule
 * (24 hours and more); once that schedule is spent, or the tenant no longer exports traces, the
 * batch is dropped and logged. The endpoint and its headers are read from the tenant's settings
 * at each export, so a changed or removed setting applies to spans still owed.
 */
import { loadConfig } from "../config";
import { isOriginAllowed } from "../egress/allowed-origins";
import { safeFetch } from "../egress/safe-fetch";
import { log } from "../log";
import { maskerOf } from "../shared/secret-mask";
import { deliveryRetryDelay } from "../notifications/schedule";
import { tenantIndexStub } from "../objects";
import type { SpanOutbox } from "./span-outbox";
import { exportBody } from "./otlp";
import type { TracesSettings } from "../session-config/trace-types";

/** Spans per request: OTLP collectors take far more; this keeps one body well under a megabyte. */
export const EXPORT_BATCH_SPANS = 200;
/** One export's whole exchange; past it the batch counts as failed and is tried again. */
export const EXPORT_TIMEOUT_MS = 10_000;
/** The collector's answer body is not used; a little is read so the connection can be reused. */
const EXPORT_MAX_RESPONSE_BYTES = 4 * 1024;

/** The URL spans are posted to (OTLP/HTTP's signal path under the configured endpoint). */
const NOT_ALLOWED = "refused: the collector's origin is not in the tenant's webhook_origins";

export function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, "")}/v1/traces`;
}

/**
 * OTLP/HTTP: 400 means the data will never be accepted, so retrying cannot help; every other
 * failure (429, 5xx, no answer, a refusal to connect) may pass.
 */
export function isRetryableStatus(status: number): boolean {
  return status !== 400 && status !== 413 && !(status >= 401 && status <= 404);
}

type Attempt = { kind: "sent" } | { kind: "retry"; error: string } | { kind: "drop"; error: string };

export class TraceExporter {
  #running = false;

  constructor(
    private readonly store: SpanOutbox,
    private readonly env: Cloudflare.Env,
    /** Whether the session still stands: the session object's own existence check, passed in. */
    private readonly live: () => boolean,
    /** Called when an export ends, so the alarm follows what is due next. */
    private readonly resync: () => void,
  ) {}

  /** When the next export is due (epoch ms), or null when no span is owed. While one runs, its deadline. */
  dueAt(now: number): number | null {
    if (!this.live() || this.store.spanCount() === 0) return null;
    if (this.#running) return now + EXPORT_TIMEOUT_MS;
    return Math.max(now, this.store.traceExportRetry().retry_at);
  }

  /** Starts an export when one is due and none runs; returns at once (the export runs beside the loop). */
  kick(): void {
    const due = this.dueAt(Date.now());
    if (this.#running || due === null || due > Date.now()) return;
    this.#running = true;
    void this.#exportAll()
      .catch((error: unknown) => log("error", "trace_export_error", { error: String(error) }))
      .finally(() => {
        this.#running = false;
        this.resync();
      });
  }

  /** Exports batch after batch while the collector takes them; stops at the first failure. */
  async #exportAll(): Promise<void> {
    for (;;) {
      const session = this.store.session();
      if (!session) return;
      const batch = this.store.spans(EXPORT_BATCH_SPANS);
      if (batch.length === 0) return;
      const settings = await tenantIndexStub(this.env, session.tenant_id).getSettings(session.tenant_id);
      if (!this.live()) return; // erased meanwhile
      const attempt = await this.#send(
        settings.traces ?? null,
        settings.webhook_origins ?? null,
        batch.map((stored) => stored.span),
      );
      if (!this.live()) return;
      const last = batch[batch.length - 1]!.seq;
      if (attempt.kind === "retry") {
        const failures = this.store.traceExportRetry().failures + 1;
        const delay = deliveryRetryDelay(failures, loadConfig(this.env).notifyRetryScale);
        if (delay !== null) {
          log("warn", "trace_export_failed", {
            tenant_id: session.tenant_id,
            session_id: session.id,
            spans: batch.length,
            failures,
            retry_in_ms: delay,
            error: attempt.error,
          });
          this.store.putTraceExportRetry({ failures, retry_at: Date.now() + delay });
          return;
        }
        log("error", "trace_export_dropped", {
          tenant_id: session.tenant_id,
          session_id: session.id,
          spans: batch.length,
          failures,
          error: attempt.error,
        });
      } else if (attempt.kind === "drop") {
        log("warn", "trace_export_dropped", {
          tenant_id: session.tenant_id,
          session_id: session.id,
          spans: batch.length,
          error: attempt.error,
        });
      }
      this.store.transaction(() => {
        this.store.removeSpansThrough(last);
        this.store.putTraceExportRetry({ failures: 0, retry_at: 0 });
      });
    }
  }

  async #send(traces: TracesSettings | null, origins: readonly string[] | null, spans: Parameters<typeof exportBody>[0]): Promise<Attempt> {
    if (!traces) return { kind: "drop", error: "the tenant no longer exports traces" };
    // Checked when sent, as every outgoing call of a tenant: the settings' check holds only as long as both stay as set.
    if (!isOriginAllowed(tracesUrl(traces.endpoint), origins)) return { kind: "drop", error: NOT_ALLOWED };
    const config = loadConfig(this.env);
    // Entered in the set every log line is masked with, whatever code would log them.
    maskerOf(Object.values(traces.headers ?? {}));
    // Header values go to the collector and nowhere else: never into a log line or an error.
    const result = await safeFetch(
      tracesUrl(traces.endpoint),
      { method: "POST", headers: { ...traces.headers, "content-type": "application/json" }, body: exportBody(spans) },
      {
        allowPrivate: config.allowPrivateUrls,
        allowedSchemes: config.allowPrivateUrls ? ["https", "http"] : ["https"],
        timeoutMs: EXPORT_TIMEOUT_MS,
        maxBytes: EXPORT_MAX_RESPONSE_BYTES,
        maxRedirects: 0,
        textOnly: false,
      },
    );
    if (!result.ok) return result.reason === "refused" ? { kind: "drop", error: result.detail } : { kind: "retry", error: result.reason };
    if (result.status >= 200 && result.status < 300) return { kind: "sent" };
    const error = `the collector answered ${result.status}`;
    return isRetryableStatus(result.status) ? { kind: "retry", error } : { kind: "drop", error };
  }
}
