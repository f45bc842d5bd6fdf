/**
 * The unit that starts a run with MCP servers: their tools are listed (all servers at once) and
 * saved in the session object's storage, so the tool set stays the same for the whole run, through any
 * restart. A server that cannot be reached is asked again after a backoff; a refusal, or a tool
 * set that cannot be offered, ends the run `failed` with `tools_unavailable`.
 */
import { tenantIndexStub } from "../../../../objects";
import { deadline } from "../../../../shared/deadline";
import type { StepScope } from "../../engine/unit-scope";
import { discoveryVerdict, listServers, maskListing, type DiscoveryVerdict, type ServerListing } from "../../tools/mcp/discovery";
import { McpConnections } from "../../tools/mcp/pool";
import { UnitCredentials } from "../../tools/unit-credentials";
import type { McpToolSpec, UnitOutcome } from "../../../../session-config/types";
import { log } from "../../../../log";

/** Every server's `initialize` and `tools/list` pages together; well within an alarm. */
export const DISCOVERY_TIMEOUT_MS = 60_000;

export async function runDiscoveryStep(scope: StepScope): Promise<UnitOutcome> {
  const session = scope.requireSession();
  const servers = session.tools.filter((tool): tool is McpToolSpec => tool.type === "mcp");
  const credentials = UnitCredentials.forSession(scope.env, session);
  const pool = new McpConnections({
    credentials,
    allowPrivateUrls: scope.config.allowPrivateUrls,
    allowedOrigins: async () => (await tenantIndexStub(scope.env, session.tenant_id).getCallSigning(session.tenant_id)).webhook_origins,
    traceparent: () => scope.traceparent(),
  });
  const controller = scope.inflight.begin();
  const limit = deadline(DISCOVERY_TIMEOUT_MS);
  let listings: ServerListing[];
  try {
    listings = await listServers(servers, pool, AbortSignal.any([controller.signal, limit.signal]));
    // A server may list the credential it was sent (in a description, a schema): masked like its headers.
    const masker = credentials.masker();
    listings = listings.map((listing) => (listing.ok ? maskListing(listing.server, listing.tools, masker) : listing));
  } finally {
    limit.clear();
    scope.inflight.end(controller);
    await pool.closeAll();
  }

  const verdict = maskedVerdict(discoveryVerdict(session.tools, listings, scope.store.run().attempts), credentials);
  // A server whose credential cannot be used: its tools cannot be listed, and the backend is told who must connect it.
  const required = listings.flatMap((listing) =>
    !listing.ok && listing.failure.credential ? [credentials.required(listing.failure.credential)] : [],
  );
  if (verdict.kind !== "save") {
    log("warn", "mcp_discovery_failed", {
      tenant_id: session.tenant_id,
      session_id: session.id,
      verdict: verdict.kind,
      reason: verdict.kind === "retry" ? verdict.reason : verdict.error,
    });
  }
  const outcome: UnitOutcome = verdict.kind === "save" ? "ok" : verdict.kind === "retry" ? "retry" : "failed";
  // Cancelled or paused meanwhile: what was listed is not saved, and a resume lists again.
  scope.commit((w) => {
    for (const data of required) w.requireCredential(data);
    if (verdict.kind === "save") {
      w.saveRunTools(verdict.tools);
      if (w.store.run().attempts > 0) w.updateRun({ attempts: 0, next_attempt_at: 0 });
    } else if (verdict.kind === "retry") {
      w.updateRun({ attempts: verdict.attempts, next_attempt_at: Date.now() + verdict.delayMs });
    } else {
      w.finishRun("failed", "tools_unavailable", verdict.error);
    }
  });
  return outcome;
}

/** A failure's text never quotes a credential's value, whoever echoed it. */
function maskedVerdict(verdict: DiscoveryVerdict, credentials: UnitCredentials): DiscoveryVerdict {
  const masker = credentials.masker();
  if (verdict.kind === "retry") return { ...verdict, reason: masker.mask(verdict.reason) };
  if (verdict.kind === "fail") return { kind: "fail", error: masker.mask(verdict.error) };
  return verdict;
}
