/**
 * A scripted model for development that really uses tools: when nothing is scripted for a
 * request, it calls each of the session's tools once, in the order they were declared, with an
 * input generated from the tool's JSON Schema, then answers from their results. Pure: the mock
 * server hands it a request and sends what it returns.
 */
import { createHash, randomBytes } from "node:crypto";
import { generateSync, type JsonSchema } from "json-schema-faker";
import type { ReplyStep } from "../mock-protocol";

/** A content block as a request carries it; only the fields read here are relied on. */
type Block = { type: string; [field: string]: unknown };

/** The model-facing shape of a tool in a Messages API request. */
interface ToolDefinition {
  name: string;
  description?: string;
  input_schema?: unknown;
}

interface RequestMessage {
  role: string;
  content: string | Block[];
}

export interface ModelRequest {
  messages?: RequestMessage[];
  tools?: ToolDefinition[];
}

export interface ReplyContext {
  /** The mock server's own URL: `http_fetch` is pointed at one of its pages. */
  serverUrl: string;
}

/**
 * Inputs for the built-in tools that mean something (a real time zone, a page that answers);
 * every other tool gets one generated from its schema.
 */
export function knownInput(name: string, context: ReplyContext): Record<string, unknown> | null {
  if (name === "get_time") return { timezone: "Europe/Paris" };
  if (name === "http_fetch") return { url: `${context.serverUrl}/page/hello` };
  return null;
}

/** A Messages API answer for `request`: the next tool call of this run, or the final text. */
export function toolUsingReply(request: ModelRequest, context: ReplyContext): ReplyStep["reply"] {
  const messages = request.messages ?? [];
  const tools = request.tools ?? [];
  const run = messages.slice(lastPromptIndex(messages));
  const called = new Map<string, string>(); // tool_use id → tool name
  for (const block of blocksOf(run, "assistant")) {
    if (block.type === "tool_use") called.set(String(block.id), String(block.name));
  }
  const next = tools.find((tool) => ![...called.values()].includes(tool.name));
  if (next) {
    const input = knownInput(next.name, context) ?? sampleInput(next);
    return {
      content: [
        { type: "text", text: `Calling ${next.name}.` },
        { type: "tool_use", id: `toolu_dev_${randomBytes(12).toString("hex")}`, name: next.name, input },
      ],
    };
  }
  return { content: [{ type: "text", text: finalText(run, called, tools.length, promptText(messages)) }] };
}

/** The mock server's `modelFallback`: the tool-using model for whatever was not scripted. */
export function toolUsingFallback(requestBody: unknown, serverUrl: string): ReplyStep["reply"] {
  const request = typeof requestBody === "object" && requestBody !== null ? (requestBody as ModelRequest) : {};
  return toolUsingReply(request, { serverUrl });
}

/** An input valid for the tool's schema; the same tool gets the same input, run after run. */
export function sampleInput(tool: ToolDefinition): unknown {
  const schema = (tool.input_schema ?? { type: "object" }) as JsonSchema;
  const seed = createHash("sha256").update(tool.name).digest().readUInt32BE(0);
  return generateSync(schema, { seed, maxDepth: 4, maxDefaultItems: 3, useExamplesValue: true, useDefaultValue: true });
}

function finalText(run: RequestMessage[], called: Map<string, string>, toolCount: number, prompt: string): string {
  if (toolCount === 0) {
    return `You said: "${prompt}". This is the development mock model: give the session tools and it calls each of them once, then answers from their results.`;
  }
  const lines = blocksOf(run, "user")
    .filter((block) => block.type === "tool_result")
    .map((block) => {
      const name = called.get(String(block.tool_use_id)) ?? "a tool";
      const marker = block.is_error === true ? " (error)" : "";
      return `- ${name}${marker}: ${String(block.content)}`;
    });
  return [`I called ${lines.length} tool${lines.length === 1 ? "" : "s"} for "${prompt}":`, ...lines].join("\n");
}

/** Where the current run starts: the last user message with text in it, not only tool results. */
function lastPromptIndex(messages: RequestMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === "user" && textOf(message) !== null) return i;
  }
  return 0;
}

function promptText(messages: RequestMessage[]): string {
  const message = messages[lastPromptIndex(messages)];
  return message ? (textOf(message) ?? "") : "";
}

function textOf(message: RequestMessage): string | null {
  if (typeof message.content === "string") return message.content;
  const texts = message.content.filter((block) => block.type === "text").map((block) => String(block.text));
  return texts.length > 0 ? texts.join(" ") : null;
}

function blocksOf(messages: RequestMessage[], role: string): Block[] {
  return messages.filter((m) => m.role === role && Array.isArray(m.content)).flatMap((m) => m.content as Block[]);
}
