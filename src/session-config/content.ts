/**
 * What a conversation holds: content blocks (the Anthropic Messages format, the platform's own
 * storage format; other providers translate), messages, tool calls and token usage.
 */

export interface TextBlock {
  type: "text";
  text: string;
  /**
   * Where the provider says the text comes from (Anthropic's `citations`: a web search result's
   * location, a fetched document's characters), kept exactly as given and sent back with the text.
   */
  citations?: Citation[];
}
/** One citation as the provider gave it; `type` names its kind (`web_search_result_location`, `char_location`, …). */
export type Citation = { type: string } & Record<string, unknown>;
export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}
export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}
/** The image types every provider the platform speaks to accepts. */
export const IMAGE_MEDIA_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

/**
 * An image in the history: a reference to the bytes the session stored once (`images`, see
 * object/store/images.ts), never the bytes themselves, so a message, its copies and its events
 * stay small. `url` is where the platform fetched it from, when the caller gave a URL.
 */
export interface ImageBlock {
  type: "image";
  source: { type: "stored"; image_id: string; media_type: ImageMediaType; size_bytes: number; width: number; height: number; url?: string };
}
/**
 * The model's reasoning, as its provider gave it, on the assistant message it belongs to:
 * Anthropic's `thinking` with its `signature` (sent back unchanged, as the API requires within a
 * tool loop), or a Chat Completions server's `reasoning_content` / `reasoning` (no signature).
 * Never answer text: no text of the answer is read from it.
 */
export interface ThinkingBlock {
  type: "thinking";
  thinking: string;
  signature?: string;
  /** OpenRouter's `reasoning_details` of the answer, as received (pieces of one item joined): sent back with its tool calls. */
  reasoning_details?: Record<string, unknown>[];
}
/** Reasoning the provider encrypted (Anthropic's `redacted_thinking`): kept and sent back as given. */
export interface RedactedThinkingBlock {
  type: "redacted_thinking";
  data: string;
}
export type ReasoningBlock = ThinkingBlock | RedactedThinkingBlock;

/**
 * The block kinds of a provider's own tools (Anthropic's server tools): the provider ran them
 * inside its answer, so the platform never runs them; it keeps each block exactly as given
 * (search results' `encrypted_content` included) and sends it back unchanged.
 */
export const PROVIDER_BLOCK_TYPES = [
  "server_tool_use",
  "web_search_tool_result",
  "web_fetch_tool_result",
  "code_execution_tool_result",
  "bash_code_execution_tool_result",
  "text_editor_code_execution_tool_result",
  "tool_search_tool_result",
  "mcp_tool_use",
  "mcp_tool_result",
] as const;
export type ProviderBlockType = (typeof PROVIDER_BLOCK_TYPES)[number];
export type ProviderBlock = { type: ProviderBlockType } & Record<string, unknown>;

export function isProviderBlock(block: { type: string }): block is ProviderBlock {
  return (PROVIDER_BLOCK_TYPES as readonly string[]).includes(block.type);
}

export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock | ImageBlock | ThinkingBlock | RedactedThinkingBlock | ProviderBlock;

export function isReasoningBlock(block: { type: string }): block is ReasoningBlock {
  return block.type === "thinking" || block.type === "redacted_thinking";
}

export type Role = "user" | "assistant";

export interface Message {
  seq: number;
  role: Role;
  content: ContentBlock[];
  created_at: string;
}

export const TOOL_CALL_STATUSES = ["pending", "waiting_approval", "waiting_tool_output", "running", "done", "error"] as const;
export type ToolCallStatus = (typeof TOOL_CALL_STATUSES)[number];

/** How a call that needed approval was decided: by a person, or by its approval timeout. */
export const TOOL_CALL_DECISIONS = ["approved", "denied", "expired"] as const;
export type ToolCallDecision = (typeof TOOL_CALL_DECISIONS)[number];
/** `decided_by` of a call whose approval expired: no principal decided it. */
export const SYSTEM_DECIDER = "system";

/** What the tool policy decided for a call (src/policy/): the statements that decided, `tenant.<id>` or `agent.<id>`. */
export interface ToolCallPolicy {
  decision: "allow" | "deny" | "require_approval";
  policy_ids: string[];
}

export interface ToolCall {
  id: string;
  step: number;
  name: string;
  input: unknown;
  status: ToolCallStatus;
  output: string | null;
  is_error: boolean;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** The subject that approved or denied the call, or `system` when its approval expired; null if never decided. */
  decided_by: string | null;
  decided_at: string | null;
  decision: ToolCallDecision | null;
  /** The tool policy's decision; null when no policy judged the call (none was set, or the call came before policies). */
  policy: ToolCallPolicy | null;
}

/**
 * Token counts of a session (or a tenant's day). Providers that cache prompts report the cached
 * part apart: `input_tokens` is the input neither read from nor written to the cache, so the
 * whole input of a call is `input_tokens + cache_read_tokens + cache_write_tokens`.
 */
export interface Usage {
  steps: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  /**
   * Of `output_tokens`, those the model spent reasoning, where the provider reports them apart
   * (Chat Completions' `completion_tokens_details.reasoning_tokens`); absent until one did.
   */
  reasoning_tokens?: number;
  /** Searches and fetches the provider's own tools made (Anthropic's `usage.server_tool_use`), billed apart from tokens; absent until one was reported. */
  web_search_requests?: number;
  web_fetch_requests?: number;
}

/** Every token a usage counts, as every token limit counts them. */
export function totalTokens(usage: Omit<Usage, "steps">): number {
  return usage.input_tokens + usage.output_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
}

/** Usage plus one call's, `steps` more model steps (0 for a summary or a discarded answer). */
export function addUsage(usage: Usage, call: Omit<Usage, "steps">, steps: number): Usage {
  return {
    steps: usage.steps + steps,
    input_tokens: usage.input_tokens + call.input_tokens,
    output_tokens: usage.output_tokens + call.output_tokens,
    cache_read_tokens: (usage.cache_read_tokens ?? 0) + call.cache_read_tokens,
    cache_write_tokens: (usage.cache_write_tokens ?? 0) + call.cache_write_tokens,
    // Present once a provider reported it apart, even as 0.
    ...(usage.reasoning_tokens !== undefined || call.reasoning_tokens !== undefined
      ? { reasoning_tokens: (usage.reasoning_tokens ?? 0) + (call.reasoning_tokens ?? 0) }
      : {}),
    ...sumOptional("web_search_requests", usage, call),
    ...sumOptional("web_fetch_requests", usage, call),
  };
}

/** A count present once a provider reported it, even as 0. */
function sumOptional<K extends "web_search_requests" | "web_fetch_requests">(key: K, a: Partial<Usage>, b: Partial<Usage>): Partial<Usage> {
  return a[key] !== undefined || b[key] !== undefined ? { [key]: (a[key] ?? 0) + (b[key] ?? 0) } : {};
}

export const EMPTY_USAGE: Usage = { steps: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 };
