/**
 * The Anthropic Messages API provider, over plain `fetch`. It owns the wire format, the headers;
 * its failures become `ModelError`s through the one mapping in `provider-errors.ts`. Given `onText`, it asks for a stream
 * (`anthropic-stream.ts` reads it) and still reads a whole JSON answer, as a proxy that does not stream may send;
 * without, it asks for the whole answer in one body.
 */
import {
  type ContentBlock,
  isProviderBlock,
  type ProviderBlock,
  type Role,
  type TextBlock,
  type ThinkingBlock,
} from "../../../session-config/types";
import { betaHeader, citationsOf, providerBlockOf, serverToolsOf, serverToolUsage } from "./anthropic-server-tools";
import { anthropicStopReason, readMessageStream } from "./anthropic-stream";
import {
  answeringModel,
  mergeTurns,
  type ModelBlock,
  ModelError,
  stopFields,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type TextDelta,
  toCount,
  type ToolDefinition,
} from "./provider";
import { httpProviderError, networkProviderError, notConfiguredError } from "./provider-errors";
import { anthropicThinking } from "../../../session-config/reasoning";

export const ANTHROPIC_VERSION = "2023-06-01";
/** The Messages API takes at most this many `cache_control` breakpoints in one request. */
export const MAX_CACHE_BREAKPOINTS = 4;
const EPHEMERAL = { type: "ephemeral" } as const;

export interface AnthropicOptions {
  baseUrl: string;
  apiKey: string | undefined;
  fetchImpl?: typeof fetch;
  now?: () => number;
}

export function anthropicProvider(options: AnthropicOptions): ModelProvider {
  const fetchImpl = options.fetchImpl ?? fetch;
  const now = options.now ?? Date.now;
  return {
    async complete(request: ModelRequest, signal: AbortSignal, onText?: (delta: TextDelta) => void): Promise<ModelResponse> {
      if (!options.apiKey) throw notConfiguredError();
      let response: Response;
      try {
        response = await fetchImpl(`${options.baseUrl}/v1/messages`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-api-key": options.apiKey,
            "anthropic-version": ANTHROPIC_VERSION,
            ...betaHeaders(request),
            ...(request.traceparent ? { traceparent: request.traceparent } : {}),
          },
          body: JSON.stringify({ ...toWire(request), stream: onText !== undefined }),
          signal,
        });
      } catch (err) {
        throw networkProviderError("anthropic", err, signal);
      }
      // Errors come as one JSON body even when a stream was asked for.
      if (response.ok && isEventStream(response))
        return readMessageStream(response.body, signal, onText, (err) => networkProviderError("anthropic", err, signal));
      let text: string;
      try {
        text = await response.text();
      } catch (err) {
        throw networkProviderError("anthropic", err, signal);
      }
      if (!response.ok) throw httpProviderError("anthropic", response, text, now());
      return fromWire(text);
    },
  };
}

function betaHeaders(request: ModelRequest): { "anthropic-beta"?: string } {
  const beta = betaHeader(request.providerTools ?? []);
  return beta ? { "anthropic-beta": beta } : {};
}

function isEventStream(response: Response): boolean {
  return (response.headers.get("content-type") ?? "").toLowerCase().startsWith("text/event-stream");
}

type Cached = { cache_control?: typeof EPHEMERAL };
/**
 * A content block as the Messages API takes it back: a thinking block always with its signature.
 * A provider block and a text's citations go back exactly as they came: opaque here, so typed as
 * nothing the platform could build (`never`), which the API's own types then accept.
 */
type WireBlock = (Exclude<ModelBlock, ThinkingBlock | TextBlock | ProviderBlock> | (ThinkingBlock & { signature: string }) | WireText) &
  Cached;
type WireText = Omit<TextBlock, "citations"> & { citations?: never[] };
interface WireMessage {
  role: Role;
  content: WireBlock[];
}
/** Tool input schemas are objects at the top (the request schemas and MCP both require it). */
type WireFunctionTool = Omit<ToolDefinition, "input_schema"> & { input_schema: { type: "object"; [key: string]: unknown } };
type WireTool = WireFunctionTool & Cached;

/**
 * The request on the wire. Prompt caching marks the stable prefix: the tool definitions, the
 * system prompt and the messages flagged `cache` (the task, the summary), at most
 * `MAX_CACHE_BREAKPOINTS` in all, so a long session pays full price for that prefix once.
 */
export function toWire(request: ModelRequest) {
  let breakpoints = MAX_CACHE_BREAKPOINTS;
  const allTools = request.output ? [...request.tools, request.output.tool] : request.tools;
  // The provider's own tools first: the cache breakpoint stays on the last function tool, as before.
  // A server tool's options are the API's own, passed as the session gave them (the schema bounds them): opaque here.
  const serverTools = serverToolsOf(request.providerTools ?? []) as never[];
  const tools = [
    ...serverTools,
    ...allTools.map((tool, i): WireTool => {
      const wire = { ...tool, input_schema: tool.input_schema as WireFunctionTool["input_schema"] };
      return i === allTools.length - 1 && breakpoints-- > 0 ? { ...wire, cache_control: EPHEMERAL } : wire;
    }),
  ];
  const system = request.system
    ? [{ type: "text" as const, text: request.system, ...(breakpoints-- > 0 ? { cache_control: EPHEMERAL } : {}) }]
    : null;
  const messages = wireMessages(request.messages).map((message, i): WireMessage => {
    if (!request.messages[i]?.cache || breakpoints <= 0 || message.content.length === 0) return message;
    breakpoints--;
    const content = [...message.content];
    content[content.length - 1] = { ...content[content.length - 1]!, cache_control: EPHEMERAL };
    return { role: message.role, content };
  });
  const thinking = anthropicThinking(request.reasoning, request.maxTokens);
  return {
    model: request.model,
    max_tokens: request.maxTokens,
    ...(thinking ? { thinking } : {}),
    ...(system ? { system } : {}),
    messages: mergeTurns(messages.filter((message) => message.content.length > 0)),
    ...(tools.length ? { tools } : {}),
    ...(request.output ? { tool_choice: outputToolChoice(request, thinking !== null) } : {}),
  };
}

/**
 * A run that owes a structured answer answers only through tools: with tools of its own the
 * model must call one (`any`), and calls the output tool once it is ready to answer; without,
 * it must call the output tool itself. With thinking on the API takes only `auto`: the model is
 * then free to answer in text, which the judge tells it to give again through the tool.
 */
function outputToolChoice(request: ModelRequest, thinking: boolean): { type: "auto" } | { type: "any" } | { type: "tool"; name: string } {
  if (thinking) return { type: "auto" };
  return request.tools.length > 0 ? { type: "any" } : { type: "tool", name: request.output!.tool.name };
}

/**
 * The messages as the API takes them, one for one (an emptied message stays, empty, so its
 * `cache` flag keeps its place; it is dropped after). The API refuses empty text blocks and turns
 * without content; neither carries meaning. Thinking blocks go back exactly as they came (the
 * API checks their signatures, and within a tool loop requires the last assistant turn's); one
 * without a signature did not come from this API and would be refused.
 */
function wireMessages(messages: ModelRequest["messages"]): WireMessage[] {
  return messages.map((m) => ({
    role: m.role,
    content: m.content.flatMap((b): WireBlock[] => {
      if (b.type === "text") return b.text.length > 0 ? [b as WireText] : [];
      if (b.type === "thinking") return b.signature ? [{ ...b, signature: b.signature }] : [];
      if (isProviderBlock(b)) return [b as never];
      return [b];
    }),
  }));
}

function fromWire(text: string): ModelResponse {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ModelError("the model answered with a body that is not JSON", true, 200);
  }
  const record = body as {
    model?: unknown;
    content?: unknown;
    stop_reason?: unknown;
    usage?: { input_tokens?: unknown; output_tokens?: unknown; cache_read_input_tokens?: unknown; cache_creation_input_tokens?: unknown };
  };
  if (!record || !Array.isArray(record.content)) {
    throw new ModelError("the model answered without a content array", true, 200);
  }
  const content: ContentBlock[] = [];
  for (const block of record.content as Record<string, unknown>[]) {
    // Empty text blocks are dropped: the API refuses them when they are sent back.
    if (block?.type === "text" && typeof block.text === "string") {
      const citations = citationsOf(block.citations);
      if (block.text.length > 0) content.push({ type: "text", text: block.text, ...(citations?.length ? { citations } : {}) });
    } else if (block?.type === "tool_use" && typeof block.id === "string" && typeof block.name === "string") {
      content.push({ type: "tool_use", id: block.id, name: block.name, input: block.input ?? {} });
    } else if (block?.type === "thinking" && typeof block.thinking === "string") {
      content.push({
        type: "thinking",
        thinking: block.thinking,
        ...(typeof block.signature === "string" && block.signature !== "" ? { signature: block.signature } : {}),
      });
    } else if (block?.type === "redacted_thinking" && typeof block.data === "string") {
      content.push({ type: "redacted_thinking", data: block.data });
    } else if (block && typeof block === "object") {
      // The provider's own tools' blocks, kept as given; kinds the platform does not know are not.
      const kept = providerBlockOf(block);
      if (kept) content.push(kept);
    }
  }
  return {
    content,
    ...stopFields(anthropicStopReason(record.stop_reason), record.stop_reason),
    usage: {
      input_tokens: toCount(record.usage?.input_tokens),
      output_tokens: toCount(record.usage?.output_tokens),
      cache_read_tokens: toCount(record.usage?.cache_read_input_tokens),
      cache_write_tokens: toCount(record.usage?.cache_creation_input_tokens),
      ...serverToolUsage(record.usage),
    },
    ...answeringModel(record.model),
  };
}
