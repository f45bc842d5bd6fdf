/**
 * What the mock model checks in a request and answers when nothing was scripted, for the parts
 * of the providers' APIs that a wrong shape would make a real provider refuse: images (each
 * dialect's own format, checked down to the bytes' signature), a forced tool (`tool_choice`) and
 * `response_format: json_schema`. A request the real API would refuse gets the same 400 here,
 * so a test cannot pass on a request no provider would take. Unscripted, a forced tool is
 * called and a JSON schema answered with a value generated from its schema.
 */
import type { ReplyStep } from "../mock-protocol";

type Dialect = "anthropic" | "openai";
type Json = Record<string, unknown>;

const MEDIA_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];
const SIGNATURES: Record<string, (bytes: Buffer) => boolean> = {
  "image/png": (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  "image/jpeg": (b) => b[0] === 0xff && b[1] === 0xd8,
  "image/gif": (b) => b.subarray(0, 4).toString("latin1") === "GIF8",
  "image/webp": (b) => b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP",
};
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const SCHEMA_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Why the real API would refuse this request, or null. */
export function requestProblem(dialect: Dialect, body: unknown, server?: string): string | null {
  if (!isObject(body)) return "the body is not a JSON object";
  if (server === "groq") {
    // Groq answers 400 to a field it does not take on an assistant message.
    const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
    const m = messages.findIndex((message) => message.role === "assistant" && "reasoning_content" in message);
    if (m >= 0)
      return `'messages.${m}' : for 'role:assistant' the following must be satisfied[('messages.${m}' : property 'reasoning_content' is unsupported)]`;
  }
  return dialect === "anthropic" ? anthropicProblem(body) : openAiProblem(body);
}

function anthropicProblem(body: Json): string | null {
  const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
  const choice = body.tool_choice;
  if (choice !== undefined) {
    if (!isObject(choice) || !["auto", "any", "tool", "none"].includes(String(choice.type))) return "tool_choice: unknown type";
    if (choice.type !== "auto" && choice.type !== "none" && tools.length === 0) return "tool_choice: requires tools";
    if (choice.type === "tool" && !tools.some((tool) => tool.name === choice.name))
      return `tool_choice: no tool named ${String(choice.name)}`;
  }
  for (const [m, message] of (Array.isArray(body.messages) ? (body.messages as Json[]) : []).entries()) {
    if (!Array.isArray(message.content)) continue;
    for (const [b, block] of (message.content as Json[]).entries()) {
      if (block.type !== "image") continue;
      if (message.role !== "user") return `messages.${m}.content.${b}: images only in user turns`;
      const source = isObject(block.source) ? block.source : {};
      if (source.type !== "base64") return `messages.${m}.content.${b}.source.type: expected base64`;
      const problem = imageProblem(String(source.media_type), source.data);
      if (problem) return `messages.${m}.content.${b}.source: ${problem}`;
    }
  }
  return null;
}

function openAiProblem(body: Json): string | null {
  const format = body.response_format;
  if (format !== undefined) {
    if (!isObject(format) || format.type !== "json_schema") return "response_format.type: expected json_schema";
    const spec = isObject(format.json_schema) ? format.json_schema : null;
    if (!spec || typeof spec.name !== "string" || !SCHEMA_NAME.test(spec.name)) return "response_format.json_schema.name: invalid";
    if (!isObject(spec.schema)) return "response_format.json_schema.schema: expected an object";
    if (spec.strict !== undefined && typeof spec.strict !== "boolean") return "response_format.json_schema.strict: expected a boolean";
  }
  for (const [m, message] of (Array.isArray(body.messages) ? (body.messages as Json[]) : []).entries()) {
    if (!Array.isArray(message.content)) continue;
    if (message.role === "assistant" && /^(magistral|mistral)/.test(String(body.model))) {
      const problem = mistralAssistantProblem(message.content as Json[]);
      if (problem) return `messages.${m}.content.${problem}`;
      continue;
    }
    if (message.role !== "user") return `messages.${m}.content: parts only in user messages here`;
    for (const [p, part] of (message.content as Json[]).entries()) {
      if (part.type === "text" && typeof part.text === "string") continue;
      if (part.type !== "image_url") return `messages.${m}.content.${p}.type: unknown part`;
      const url = isObject(part.image_url) ? String(part.image_url.url) : "";
      const match = /^data:([a-z/]+);base64,(.*)$/s.exec(url);
      if (!match) return `messages.${m}.content.${p}.image_url.url: expected a base64 data URL`;
      const problem = imageProblem(match[1]!, match[2]);
      if (problem) return `messages.${m}.content.${p}.image_url: ${problem}`;
    }
  }
  return null;
}

/** Mistral's assistant chunks: text, and thinking as text chunks (its reasoning models' dialect). */
function mistralAssistantProblem(chunks: Json[]): string | null {
  for (const [c, chunk] of chunks.entries()) {
    if (chunk.type === "text" && typeof chunk.text === "string") continue;
    if (chunk.type !== "thinking" || !Array.isArray(chunk.thinking)) return `${c}.type: unknown chunk`;
    if (!(chunk.thinking as Json[]).every((part) => part.type === "text" && typeof part.text === "string"))
      return `${c}.thinking: text chunks only`;
  }
  return null;
}

function imageProblem(mediaType: string, data: unknown): string | null {
  if (!MEDIA_TYPES.includes(mediaType)) return `unsupported media type ${mediaType}`;
  if (typeof data !== "string" || !BASE64.test(data)) return "data is not base64";
  if (!SIGNATURES[mediaType]!(Buffer.from(data, "base64"))) return `the data is not ${mediaType}`;
  return null;
}

/**
 * The answer to a request when nothing was scripted: `base` (the mock's usual answer), unless
 * the request forces a tool (then that tool is called; with `any`, `base`'s own tool call if it
 * makes one, else the last tool declared) or asks for a JSON schema (then a value of it).
 */
export async function defaultAnswer(dialect: Dialect, body: unknown, base: ReplyStep["reply"]): Promise<ReplyStep["reply"]> {
  if (!isObject(body)) return base;
  if (dialect === "anthropic") {
    const choice = isObject(body.tool_choice) ? body.tool_choice : null;
    const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
    if (choice?.type === "any" && base.content.some((block) => block.type === "tool_use")) return base;
    const tool = choice?.type === "tool" ? tools.find((t) => t.name === choice.name) : choice?.type === "any" ? tools.at(-1) : undefined;
    if (!tool) return base;
    const input = await sample(String(tool.name), tool.input_schema);
    return { content: [{ type: "tool_use", id: `toolu_mock_${crypto.randomUUID().replaceAll("-", "")}`, name: String(tool.name), input }] };
  }
  const format = isObject(body.response_format) ? body.response_format : null;
  const spec = format && isObject(format.json_schema) ? format.json_schema : null;
  if (!spec || base.content.some((block) => block.type === "tool_use")) return base;
  return { content: [{ type: "text", text: JSON.stringify(await sample(String(spec.name), spec.schema)) }] };
}

async function sample(name: string, schema: unknown): Promise<unknown> {
  // Loaded on first use only, so a test run that never asks for one does not load the sampler.
  const { sampleInput } = await import("./tool-using-model.ts");
  return sampleInput({ name, input_schema: schema });
}
