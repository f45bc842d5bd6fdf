/**
 * Listing the tools of a session's MCP servers when a run starts, and what follows from the
 * answers: the run's tool set, another try after a backoff (a server that could not be reached),
 * or the end of the run with a reason that names the server (a refusal, a tool that cannot be
 * offered, more tools than fit). The tool set the model sees is exactly what the session
 * declares or the run does not go on: a server that is missing a tool is never papered over.
 */
import { nextAttempt } from "../../../../shared/retry";
import { log } from "../../../../log";
import { UNIT_RETRY } from "../../loop/retry";
import type { McpToolSpec, ToolSpec } from "../../../../session-config/types";
import type { SecretMasker } from "../../../../shared/secret-mask";
import { serverMasker, toolsMasker } from "../../../../session-config/masking";
import { describeFailure, type McpFailure } from "./outcome";
import { type DiscoveredTool, type ListedTool, planRunTools } from "./plan";
import type { McpConnections } from "./pool";

export type ServerListing = { server: string; ok: true; tools: ListedTool[] } | { server: string; ok: false; failure: McpFailure };

export type DiscoveryVerdict =
  | { kind: "save"; tools: DiscoveredTool[] }
  | { kind: "retry"; reason: string; attempts: number; delayMs: number }
  | { kind: "fail"; error: string };

export async function listServers(servers: readonly McpToolSpec[], pool: McpConnections, signal: AbortSignal): Promise<ServerListing[]> {
  return Promise.all(
    servers.map(async (spec): Promise<ServerListing> => {
      const masker = serverMasker(spec);
      try {
        const connection = await pool.get(spec, signal);
        return maskListing(spec.name, await connection.listTools(signal), masker);
      } catch (error) {
        return { server: spec.name, ok: false, failure: await describeFailure(spec.name, error, masker) };
      }
    }),
  );
}

/**
 * A listing as the model may see it: descriptions, titles and schemas masked like an output. A
 * tool's name cannot be masked (it is what the server is called with), so a name that carries a
 * header value makes the listing fail.
 */
export function maskListing(server: string, tools: ListedTool[], masker: SecretMasker): ServerListing {
  if (masker.empty) return { server, ok: true, tools };
  if (tools.some((tool) => masker.mask(tool.name) !== tool.name)) {
    return { server, ok: false, failure: { message: `MCP server "${server}": a tool's name carries a header value`, transient: false } };
  }
  return { server, ok: true, tools: tools.map((tool) => ({ ...masker.maskJson(tool), name: tool.name })) };
}

/**
 * Pure. `attempts`: failed tries of this unit before this one. A failure that may pass is tried
 * again while attempts remain, like a model call; any other ends the run.
 */
export function discoveryVerdict(
  specs: readonly ToolSpec[],
  listings: readonly ServerListing[],
  attempts: number,
  random: number = Math.random(),
): DiscoveryVerdict {
  const verdict = judge(specs, listings, attempts, random);
  // Each failure was masked with its server's values; this masks what names a tool, with all of them.
  const masker = toolsMasker(specs);
  if (verdict.kind === "retry") return { ...verdict, reason: masker.mask(verdict.reason) };
  if (verdict.kind === "fail") return { kind: "fail", error: masker.mask(verdict.error) };
  return verdict;
}

function judge(specs: readonly ToolSpec[], listings: readonly ServerListing[], attempts: number, random: number): DiscoveryVerdict {
  const failures = listings.flatMap((listing) => (listing.ok ? [] : [listing.failure]));
  if (failures.length > 0) {
    const text = failures.map((failure) => failure.message).join("; ");
    const next = nextAttempt(UNIT_RETRY, attempts + 1, { transient: failures.every((failure) => failure.transient) }, random);
    if (next.retry) return { kind: "retry", reason: text, attempts: next.attempts, delayMs: next.delayMs };
    const tries = next.attempts > 1 ? ` (after ${next.attempts} tries)` : "";
    return { kind: "fail", error: `the tools of an MCP server could not be listed${tries}: ${text}` };
  }
  const plan = planRunTools(specs, new Map(listings.flatMap((listing) => (listing.ok ? [[listing.server, listing.tools] as const] : []))));
  if (!plan.ok) return { kind: "fail", error: plan.problem };
  const masker = toolsMasker(specs);
  for (const note of plan.unchecked) log("warn", "mcp_output_schema_unused", { detail: masker.mask(note) });
  return { kind: "save", tools: plan.tools };
}
