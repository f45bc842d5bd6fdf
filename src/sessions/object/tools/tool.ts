/**
 * What a tool is to the loop: the definition the model sees, its safety flags, and
 * (except for client tools, whose output the caller posts) an implementation.
 */
import type { CallSigning } from "../../../tenants/types";
import type { ToolDefinition } from "../model/provider";
import type { McpConnections } from "./mcp/pool";
import type { MemoryStoreRpc } from "../../../memory/rpc";
import type { CredentialSource } from "../../../egress/credentials";
import type { CredentialFailure } from "../../../egress/credential-fetch";
import type { RemoteTask } from "../store/remote-tasks";

export interface ToolContext {
  sessionId: string;
  tenantId: string;
  /** The subject that created the session: a webhook receiver may authorize on it. */
  createdBy: string;
  toolCallId: string;
  /** `<session_id>:<tool_call_id>`: the same on every retry and after a restart. */
  idempotencyKey: string;
  /** The W3C `traceparent` of the call's span when the run is traced, for the requests it makes. */
  traceparent?: string;
  signal: AbortSignal;
  allowPrivateUrls: boolean;
  maxOutputChars: number;
  /**
   * Where `run_code` runs: a Dynamic Worker made by this loader (production: the code's CPU is
   * its own, under a limit the runtime enforces), or, when absent, the interpreter in this object.
   */
  codeLoader?: WorkerLoader | null;
  /** The tenant's signing secrets (newest first) and allowed origins, read when a webhook tool needs them. */
  callSigning: () => Promise<CallSigning>;
  /** The unit's connections to MCP servers, closed when the unit ends. */
  mcp: McpConnections;
  /**
   * The vault credentials of the session's end user (else the tenant's), for the tools that name
   * one (`auth`); absent where no vault is reachable, which such a tool reports as `vault_unavailable`.
   */
  credentials?: CredentialSource;
  /** An `a2a` call answered after its remote task asked for input: the task, and the answer to send on it. */
  remoteTask?: RemoteTask;
  /** An `a2a` call whose remote task is still working after its send: keeps the task durably before the call waits on it. */
  keepRemoteTask?: (task: RemoteTask) => Promise<void>;
  /** The tenant's memory store and its `max_memory_items` and `max_memory_bytes`, for the memory tools (made on first use). */
  memory: () => MemoryTarget;
}

export interface MemoryTarget {
  store: MemoryStoreRpc;
  maxItems: number;
  maxBytes: number;
}

export interface ToolOutcome {
  output: string;
  isError: boolean;
  /** The call could not use the credential its tool names: the session emits `credential_required`. */
  credentialFailure?: CredentialFailure;
  /**
   * The remote task asks for input (an `a2a` call): the call waits for its output (`output` is the
   * question), and the output posted for it is sent on this task by the call's next run.
   */
  waiting?: RemoteTask;
}

export interface Tool {
  definition: ToolDefinition;
  /** `agent`: a call starts a child session; the loop runs it (loop/steps/subagents.ts), never `run`. */
  kind: "builtin" | "webhook" | "client" | "mcp" | "agent" | "a2a";
  requiresApproval: boolean;
  /** Set where the spec chose it (a webhook's `trust`); otherwise the type's default (src/policy/trust.ts). */
  trust?: "trusted" | "untrusted";
  /**
   * How long a call may wait for approval before it is denied as expired; null or absent: no
   * limit. Set by the registry from the session's spec, for every kind of tool.
   */
  approvalTimeoutMs?: number | null;
  /**
   * An at-most-once tool has a side effect that must never happen twice: a call found
   * `running` after a restart is not run again. Any other tool is idempotent and is rerun
   * with the same idempotency key.
   */
  atMostOnce: boolean;
  /**
   * Runs in memory, with no I/O, and ends within milliseconds: nothing it does can bring the
   * object down or be seen half done, so a call is not marked `running` before it runs (a row
   * written for nothing); it goes from `pending` straight to its result, in one write. An
   * at-most-once tool is marked whatever this says: the mark is what a restart finds.
   */
  instant?: boolean;
  /** Work before the call is marked running (opening a connection), which a crash may cut off harmlessly. */
  prepare?: (ctx: ToolContext) => Promise<void>;
  /** Absent for client tools. Resolves for expected failures (as `isError`); may reject for bugs. */
  run?: (input: unknown, ctx: ToolContext) => Promise<ToolOutcome>;
}
