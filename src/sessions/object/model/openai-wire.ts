/**
 * The platform's messages in the OpenAI Chat Completions format and back. The stored history
 * keeps the Anthropic block format; this maps it both ways, so the loop never knows which
 * provider ran. Pure.
 */
import { fitsStrictMode } from "../output/output-tool";
import { type ContentBlock, type ThinkingBlock, type ToolUseBlock } from "../../../session-config/types";
import { mergeTurns, type CallUsage, type ModelBlock, type ModelRequest, type ModelStopReason, toCount } from "./provider";
import { chatReasoningEffort } from "../../../session-config/reasoning";
import { type ReasoningReplay, reasoningReplayFor } from "../../../models/catalog";
import { type MistralChunk, type ReasoningDetail, type ReasoningFields, reasoningFields, thinkingChunks } from "./openai-reasoning";

/** Chat Completions messages, each assistant turn with reasoning carrying it as thinking chunks in its content. */
export function toMistralMessages(request: ModelRequest): MistralMessage[] {
  const turns = mergeTurns(request.messages).filter((turn) => turn.role === "assistant");
  let at = 0;
  return toChatMessages(request, "none").map((message): MistralMessage => {
    if (message.role !== "assistant") return message;
    // The assistant messages come in the order of the assistant turns that have text or calls.
    while (
      at < turns.length &&
      !turns[at]!.content.some((block) => (block.type === "text" && block.text !== "") || block.type === "tool_use")
    )
      at++;
    const chunks = thinkingChunks(turns[at++]?.content ?? []);
    return chunks ? { ...message, content: chunks } : message;
  });
}

/** A part of a user message that holds an image: text parts and image parts in order. */
export type ChatContentPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

/** The `json_schema` name of a run's answer; the format asks for one (letters, digits, `_`, `-`). */
export const RESPONSE_FORMAT_NAME = "output";

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ChatContentPart[] }
  | ({ role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] } & ReasoningFields)
  | { role: "tool"; tool_call_id: string; content: string };

/** Mistral's dialect: an assistant turn with reasoning as `thinking` and `text` chunks (no OpenAI type has them). */
export type MistralMessage =
  Exclude<ChatMessage, { role: "assistant" }> | { role: "assistant"; content: MistralChunk[] | string | null; tool_calls?: ChatToolCall[] };

export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** The format has no error flag on a tool result; the model reads it from the text. */
export const TOOL_ERROR_PREFIX = "Error: ";

/** Ids the API can address in a path (`/tool-calls/{call_id}`); others are replaced. */
const TOOL_CALL_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The request for the server at `baseUrl`, in its dialect (the catalog's `reasoningReplayFor`):
 * Mistral's API gets earlier reasoning back as content chunks; every other server, plain Chat
 * Completions with the reasoning fields it takes.
 */
export function toServerRequest(request: ModelRequest, stream: boolean, baseUrl: string) {
  const replay = reasoningReplayFor(baseUrl, request.model);
  if (replay !== "thinking_chunks") return toChatRequest(request, stream, replay);
  return { ...toChatRequest(request, stream, replay), messages: toMistralMessages(request) };
}

export function toChatRequest(request: ModelRequest, stream: boolean, replay: ReasoningReplay = reasoningReplayFor("", request.model)) {
  const effort = chatReasoningEffort(request.reasoning);
  return {
    model: request.model,
    messages: toChatMessages(request, replay),
    max_completion_tokens: request.maxTokens,
    ...(effort ? { reasoning_effort: effort } : {}),
    ...(request.tools.length
      ? {
          tools: request.tools.map((tool) => ({
            type: "function" as const,
            function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
          })),
        }
      : {}),
    ...(request.output
      ? {
          response_format: {
            type: "json_schema" as const,
            json_schema: { name: RESPONSE_FORMAT_NAME, schema: request.output.schema, strict: fitsStrictMode(request.output.schema) },
          },
        }
      : {}),
    ...(stream ? { stream: true as const, stream_options: { include_usage: true } } : {}),
  };
}

export function toChatMessages(request: ModelRequest, replay: ReasoningReplay = "reasoning_content"): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (request.system) out.push({ role: "system", content: request.system });
  for (const turn of mergeTurns(request.messages)) {
    const texts = turn.content.flatMap((block) => (block.type === "text" && block.text !== "" ? [block.text] : []));
    if (turn.role === "assistant") {
      const calls = turn.content.filter((block): block is ToolUseBlock => block.type === "tool_use").map(toChatToolCall);
      if (texts.length === 0 && calls.length === 0) continue;
      const thinking = turn.content.filter((block): block is ThinkingBlock => block.type === "thinking");
      out.push({
        role: "assistant",
        content: texts.length ? texts.join("\n\n") : null,
        ...(calls.length ? { tool_calls: calls } : {}),
        ...reasoningFields(thinking, calls.length > 0, replay),
      });
      continue;
    }
    // Tool results answer the assistant turn just before, so they come first.
    for (const block of turn.content) {
      if (block.type !== "tool_result") continue;
      out.push({
        role: "tool",
        tool_call_id: block.tool_use_id,
        content: block.is_error ? `${TOOL_ERROR_PREFIX}${block.content}` : block.content,
      });
    }
    if (turn.content.some((block) => block.type === "image")) out.push({ role: "user", content: userParts(turn.content) });
    else if (texts.length) out.push({ role: "user", content: texts.join("\n\n") });
  }
  return out;
}

/** A user turn with images: its text and images as parts, in order; images as `data:` URLs. */
function userParts(content: readonly ModelBlock[]): ChatContentPart[] {
  return content.flatMap((block): ChatContentPart[] => {
    if (block.type === "text" && block.text !== "") return [{ type: "text", text: block.text }];
    if (block.type === "image")
      return [{ type: "image_url", image_url: { url: `data:${block.source.media_type};base64,${block.source.data}` } }];
    return [];
  });
}

function toChatToolCall(use: ToolUseBlock): ChatToolCall {
  // An input that was not JSON is kept as the text the model wrote and sent back as it was.
  const args = typeof use.input === "string" ? use.input : JSON.stringify(use.input ?? {});
  return { id: use.id, type: "function", function: { name: use.name, arguments: args } };
}

/** A tool call as the model finished it, arguments as text. */
export interface ChatCallParts {
  id: string | null;
  name: string;
  arguments: string;
}

/** The prose parts of an answer: its reasoning, its text, its refusal, and the order in which each first came. */
export type ChatPart = "reasoning" | "text" | "refusal";
export interface ChatParts {
  reasoning: string;
  text: string;
  refusal: string;
  /** Each part that is not empty, once, in the order it started; a part's position in the saved content. */
  order: readonly ChatPart[];
  /** OpenRouter's `reasoning_details`, kept with the reasoning. */
  details?: readonly ReasoningDetail[];
}

/** Parts of a whole answer (not streamed), in the order a stream gives them. */
export function wholeParts(reasoning: string, text: string, refusal: string, details: readonly ReasoningDetail[] = []): ChatParts {
  const order = (["reasoning", "text", "refusal"] as const).filter((part) => ({ reasoning, text, refusal })[part] !== "");
  return { reasoning, text, refusal, order, ...(details.length ? { details } : {}) };
}

/**
 * The stored content of an answer: its reasoning (a thinking block without a signature), text
 * and refusal (a text block each) in the order they came, then one tool_use per call, in order.
 */
export function toContent(parts: ChatParts, calls: readonly ChatCallParts[], newId: () => string): ContentBlock[] {
  const details = parts.details?.length ? { reasoning_details: [...parts.details] } : {};
  // Encrypted details alone still need a block to ride on: after the prose, so no streamed index moves.
  const order = details.reasoning_details && !parts.order.includes("reasoning") ? ([...parts.order, "reasoning"] as const) : parts.order;
  const content: ContentBlock[] = order.map((part): ContentBlock =>
    part === "reasoning"
      ? ({ type: "thinking", thinking: parts.reasoning, ...details } satisfies ThinkingBlock)
      : { type: "text", text: parts[part] },
  );
  for (const call of calls) {
    content.push({
      type: "tool_use",
      id: call.id && TOOL_CALL_ID.test(call.id) ? call.id : newId(),
      name: call.name,
      input: parseArguments(call.arguments),
    });
  }
  return content;
}

/** Arguments that are not a JSON object stay the model's text: validation then tells the model. */
function parseArguments(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `finish_reason`, normalised; a refusal wins over any; anything this platform does not know is `unknown`. */
export function toStopReason(finishReason: string | null, refused: boolean): ModelStopReason {
  if (refused || finishReason === "content_filter" || finishReason === "refusal") return "refusal";
  if (finishReason === "stop") return "end_turn";
  if (finishReason === "tool_calls" || finishReason === "function_call") return "tool_use";
  if (finishReason === "length") return "max_tokens";
  return "unknown";
}

/**
 * Chat Completions counts cached prompt tokens inside `prompt_tokens`; the platform counts them
 * apart. Reasoning tokens are part of `completion_tokens`, reported apart where the server does.
 */
export function toUsage(usage: unknown): CallUsage {
  const record = (usage ?? {}) as {
    prompt_tokens?: unknown;
    completion_tokens?: unknown;
    prompt_tokens_details?: { cached_tokens?: unknown } | null;
    completion_tokens_details?: { reasoning_tokens?: unknown } | null;
  };
  const prompt = toCount(record.prompt_tokens);
  const cached = Math.min(prompt, toCount(record.prompt_tokens_details?.cached_tokens));
  const output = toCount(record.completion_tokens);
  const reasoning = record.completion_tokens_details?.reasoning_tokens;
  return {
    input_tokens: prompt - cached,
    output_tokens: output,
    cache_read_tokens: cached,
    cache_write_tokens: 0,
    ...(typeof reasoning === "number" ? { reasoning_tokens: Math.min(output, toCount(reasoning)) } : {}),
  };
}
