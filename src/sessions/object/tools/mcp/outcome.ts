/**
 * What the model sees of an MCP call: the result's content as text, and every failure as one
 * readable sentence, sorted into the ones worth another try (the connection failed, the server
 * answered 5xx, no answer in time) and the ones that are final (the server answered an error, a
 * refusal by the guard). Header values a server echoes are masked. Pure.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { loadMcpSdk, type McpSdk } from "./load-sdk";
import { McpRefusal } from "./mcp-fetch";
import type { SecretMasker } from "../../../../shared/secret-mask";
import { CredentialUnavailable, type CredentialFailure } from "../../../../egress/credential-fetch";
import { validateJson, workRefusal } from "../../../../shared/json-schema/validator";
import { log } from "../../../../log";

/** What a failure's sentence keeps of what a server or the network said. */
const MAX_FAILURE_CHARS = 1_000;

export interface McpFailure {
  message: string;
  /** Worth another try for a tool whose repeat is harmless. */
  transient: boolean;
  /** The vault credential the server's `auth` names could not be used: never worth another try. */
  credential?: CredentialFailure;
}

/** Text blocks as they are; other blocks as a line saying what they were; structured content as JSON when there is no text. */
export function resultText(result: CallToolResult): string {
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "image":
      case "audio":
        parts.push(`[${block.type} (${block.mimeType}), not shown]`);
        break;
      case "resource":
        parts.push(
          "text" in block.resource
            ? block.resource.text
            : `[resource ${block.resource.uri} (${block.resource.mimeType ?? "binary"}), not shown]`,
        );
        break;
      case "resource_link":
        parts.push(`[resource ${block.uri}${block.name ? ` (${block.name})` : ""}]`);
        break;
      default:
        parts.push("[content of an unknown type, not shown]");
    }
  }
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return parts.join("\n");
}

/**
 * Why a result breaks the `outputSchema` its tool was listed with, or null. The check is ours, on
 * the schema saved when the run started: the SDK checks only on the connection that listed the
 * tool, and a call goes over another. A server's own error result carries no structured content.
 */
export function outputSchemaViolation(result: CallToolResult, schema: Record<string, unknown> | undefined): string | null {
  if (schema === undefined || result.isError === true) return null;
  if (result.structuredContent === undefined) return "the result has no structuredContent, which the tool's outputSchema requires";
  const checked = validateJson(schema, result.structuredContent);
  if (checked.valid) return null;
  // A result too large to check in the work allowed is passed on unchecked, not turned into an error.
  if (checked.unusable === null && checked.errors.length === 1 && checked.errors[0] === workRefusal()) {
    log("warn", "mcp_output_unchecked", { reason: "the result is too large to check against the tool's outputSchema" });
    return null;
  }
  const why = checked.unusable !== null ? `the schema cannot be used: ${checked.unusable}` : checked.errors.join("; ");
  return `the result's structuredContent does not match the tool's outputSchema: ${why}`;
}

export async function describeFailure(server: string, error: unknown, masker: SecretMasker): Promise<McpFailure> {
  if (error instanceof CredentialUnavailable)
    return { message: `MCP server "${server}": ${error.message}`, transient: false, credential: error.failure };
  const failure =
    error instanceof McpRefusal ? { message: `refused: ${error.message}`, transient: false } : classify(await loadMcpSdk(), error);
  // Masked before it is cut: a cut through a value would leave its first characters unmatched.
  return { transient: failure.transient, message: `MCP server "${server}": ${masker.mask(failure.message).slice(0, MAX_FAILURE_CHARS)}` };
}

function classify({ ErrorCode, McpError, StreamableHTTPError }: McpSdk, error: unknown): McpFailure {
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) return { message: "no answer in time", transient: true };
    if (error.code === ErrorCode.ConnectionClosed) return { message: "the connection closed before the answer", transient: true };
    return { message: `answered error ${error.code}: ${error.message.replace(/^MCP error -?\d+: /, "")}`, transient: false };
  }
  if (error instanceof StreamableHTTPError) {
    const status = error.code ?? -1;
    return {
      message: `answered HTTP ${status}: ${error.message.replace(/^Streamable HTTP error: /, "")}`,
      transient: status >= 500 || status === 429 || status < 0,
    };
  }
  if (error instanceof DOMException && (error.name === "AbortError" || error.name === "TimeoutError")) {
    return { message: error.message || "the request was stopped", transient: error.name === "TimeoutError" };
  }
  const text = error instanceof Error ? error.message : String(error);
  // A broken stream, a refused or reset connection, a body cut off: the server or the way there failed.
  return { message: `could not be reached: ${text}`, transient: true };
}
