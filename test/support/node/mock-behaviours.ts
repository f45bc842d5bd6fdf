/**
 * Scripted behaviours of the mock model, chosen by a marker in the run's latest user text
 * (`[mock:memory]`, `[mock:subagent]`, `[mock:approval]`, `[mock:client_tool]`, `[mock:structured]`),
 * so every capability of the platform can be shown without a real model. Pure: the mock server
 * asks it first for a request nothing was scripted for; null (no marker) keeps the usual answer.
 */
import { randomBytes } from "node:crypto";
import type { ReplyStep } from "../mock-protocol";
import { type ModelRequest, type ReplyContext, knownInput, sampleInput } from "./tool-using-model.ts";

type Reply = ReplyStep["reply"];
type Block = { type: string; [field: string]: unknown };
type Tool = NonNullable<ModelRequest["tools"]>[number];
type Message = NonNullable<ModelRequest["messages"]>[number];

export const MARKERS = ["memory", "subagent", "approval", "client_tool", "structured"] as const;
export type Marker = (typeof MARKERS)[number];

/** `[mock:<behaviour>]`, or `[mock:<behaviour>:<tool name>]` to say which tool to call. */
const MARKER = /\[mock:([a-z_]+)(?::([A-Za-z0-9_-]{1,128}))?\]/;
const ANY_MARKER = /\[mock:[^\]]*\]/g;
/** The key `[mock:memory]` saves under: one per namespace, so a later save replaces it. */
export const MEMORY_KEY = "note";
/** Tools the platform itself offers: `[mock:client_tool]` passes over them. */
const PLATFORM_TOOLS = new Set(["get_time", "http_fetch", "run_code", "memory_search", "memory_get", "memory_put", "memory_delete"]);
const RESPOND = /^respond(_\d+)?$/;

/** The marker of the run's latest user text, or null: a request without one gets the usual answer. */
export function markerOf(request: ModelRequest): { marker: string; tool: string | undefined } | null {
  const match = MARKER.exec(latestPrompt(request.messages ?? []).text);
  return match ? { marker: match[1]!, tool: match[2] } : null;
}

/** The reply a marked request gets, or null when the latest user text has no marker. */
export function markedReply(requestBody: unknown, context: ReplyContext): Reply | null {
  const request = typeof requestBody === "object" && requestBody !== null ? (requestBody as ModelRequest) : {};
  const marked = markerOf(request);
  if (!marked) return null;
  const messages = request.messages ?? [];
  const prompt = latestPrompt(messages);
  const run = new Run(messages.slice(prompt.index), prompt.text.replace(ANY_MARKER, "").trim());
  const tools = request.tools ?? [];
  switch (marked.marker as Marker) {
    case "memory":
      return memory(run, tools);
    case "subagent":
      return callOnce(run, named(tools, marked.tool) ?? tools.find(isAgentTool), "an agent tool", () => ({
        input: run.text || "Say hello.",
      }));
    case "approval":
      return callOnce(
        run,
        named(tools, marked.tool) ?? tools.find((tool) => !tool.name.startsWith("memory_") && !RESPOND.test(tool.name)),
        "a tool (declare the tool that needs approval first)",
        (tool) => knownInput(tool.name, context) ?? sampleInput(tool),
      );
    case "client_tool":
      return callOnce(
        run,
        named(tools, marked.tool) ?? tools.find((tool) => !PLATFORM_TOOLS.has(tool.name) && !isAgentTool(tool) && !RESPOND.test(tool.name)),
        "a client tool",
        (tool) => sampleInput(tool),
      );
    case "structured":
      return structured(request, tools);
    default:
      return text(`Unknown marker [mock:${marked.marker}]; the mock knows ${MARKERS.map((m) => `[mock:${m}]`).join(", ")}.`);
  }
}

/** The messages of the current run (from its latest user text) and that text without markers. */
class Run {
  /** tool_use id → the call, for the calls this run made. */
  readonly calls = new Map<string, { name: string; input: unknown }>();
  readonly results: { name: string; content: string; isError: boolean }[] = [];
  // A field of its own, not a parameter property: `npm start` runs this file with Node's type stripping, which has none.
  readonly text: string;

  constructor(messages: Message[], text: string) {
    this.text = text;
    for (const block of blocksOf(messages, "assistant"))
      if (block.type === "tool_use") this.calls.set(String(block.id), { name: String(block.name), input: block.input });
    for (const block of blocksOf(messages, "user")) {
      if (block.type !== "tool_result") continue;
      const name = this.calls.get(String(block.tool_use_id))?.name ?? "a tool";
      this.results.push({ name, content: resultText(block.content), isError: block.is_error === true });
    }
  }

  called(name: string): boolean {
    return [...this.calls.values()].some((call) => call.name === name);
  }
}

/**
 * Saves the text under `note` in the session's own namespace (a statement), or searches its
 * memory for the text's words (a question, ending in `?`), then says what it saved or found.
 */
function memory(run: Run, tools: Tool[]): Reply {
  const question = run.text.endsWith("?");
  const tool = tools.find((t) => t.name === (question ? "memory_search" : "memory_put"));
  if (!tool)
    return text(
      `This session has no ${question ? "memory_search" : "memory_put"} tool: give it a \`memory\` grant${question ? "" : " that writes"}.`,
    );
  const result = run.results.find((r) => r.name === tool.name);
  if (!run.called(tool.name)) {
    const namespace = ownNamespace(tool);
    const scope = namespace ? { namespace } : {};
    const input = question ? { query: words(run.text) || "note", ...scope } : { key: MEMORY_KEY, value: { note: run.text }, ...scope };
    return call(tool, input, question ? `Searching memory for "${run.text}".` : `Saving to memory: "${run.text}".`);
  }
  if (!result || result.isError) return text(`The memory tool failed: ${result?.content ?? "no result"}`);
  if (!question) return text(`Saved to memory: ${run.text}`);
  const found = recalled(result.content);
  return text(found.length > 0 ? `From memory: ${found.join("; ")}` : `Nothing in memory matches "${run.text}".`);
}

/**
 * The namespace a memory tool names as its default (`namespace` is ["users","u_1"] unless given),
 * or for a search the first it may read: the session's own, so the call shows it.
 */
function ownNamespace(tool: Tool): string[] | undefined {
  const match = /`namespace` is (\[[^\]]*\]) unless given|namespace you may read \((\[[^\]]*\])/.exec(tool.description ?? "");
  if (!match) return undefined;
  try {
    const parsed: unknown = JSON.parse(match[1] ?? match[2]!);
    return Array.isArray(parsed) && parsed.every((s) => typeof s === "string") ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function recalled(content: string): string[] {
  try {
    // The tool answers `{"results": [...]}`.
    const parsed: unknown = JSON.parse(content);
    const items: unknown = Array.isArray(parsed) ? parsed : (parsed as { results?: unknown } | null)?.results;
    if (!Array.isArray(items)) return [content];
    return items.map((item: { value?: { note?: unknown } }) =>
      typeof item.value?.note === "string" ? item.value.note : JSON.stringify(item.value),
    );
  } catch {
    return [content];
  }
}

/** Calls `tool` once in this run, then answers with its result. */
function callOnce(run: Run, tool: Tool | undefined, what: string, input: (tool: Tool) => unknown): Reply {
  if (!tool) return text(`This session offers no ${what} to call.`);
  if (!run.called(tool.name)) return call(tool, input(tool), `Calling ${tool.name}.`);
  const result = run.results.find((r) => r.name === tool.name);
  if (!result) return text(`${tool.name} gave no result.`);
  return text(result.isError ? `${tool.name} failed: ${result.content}` : `${tool.name} answered: ${result.content}`);
}

/** Answers with a value of the session's output schema: the `respond` tool's input, or JSON text. */
function structured(request: ModelRequest & { tool_choice?: { type?: string; name?: string } }, tools: Tool[]): Reply {
  const choice = request.tool_choice;
  const respond = choice?.type === "tool" ? tools.find((t) => t.name === choice.name) : tools.filter((t) => RESPOND.test(t.name)).at(-1);
  if (!respond) return text("This run has no output_schema to answer with.");
  return { content: [toolUse(respond.name, sampleInput(respond))] };
}

/** An agent tool is known by the one input every agent tool takes. */
function isAgentTool(tool: Tool): boolean {
  const schema = tool.input_schema as { properties?: Record<string, { type?: string }>; required?: string[] } | undefined;
  const keys = Object.keys(schema?.properties ?? {});
  return keys.length === 1 && keys[0] === "input" && schema?.properties?.input?.type === "string" && schema.required?.[0] === "input";
}

function named(tools: Tool[], name: string | undefined): Tool | undefined {
  return name === undefined ? undefined : tools.find((tool) => tool.name === name);
}

function call(tool: Tool, input: unknown, say: string): Reply {
  return { content: [{ type: "text", text: say }, toolUse(tool.name, input)] };
}

function toolUse(name: string, input: unknown): Block {
  return { type: "tool_use", id: `toolu_mock_${randomBytes(12).toString("hex")}`, name, input };
}

function text(value: string): Reply {
  return { content: [{ type: "text", text: value }] };
}

function words(value: string): string {
  return (value.match(/[\p{L}\p{N}]+/gu) ?? []).join(" ");
}

function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((block: Block) => (block.type === "text" ? String(block.text) : "")).join("");
  return JSON.stringify(content);
}

/** Where the run starts (the last user message with text, not only tool results) and that text. */
function latestPrompt(messages: Message[]): { index: number; text: string } {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== "user") continue;
    if (typeof message.content === "string") return { index: i, text: message.content };
    const texts = message.content.filter((block) => block.type === "text").map((block) => String(block.text));
    if (texts.length > 0) return { index: i, text: texts.join(" ") };
  }
  return { index: 0, text: "" };
}

function blocksOf(messages: Message[], role: string): Block[] {
  return messages.filter((m) => m.role === role && Array.isArray(m.content)).flatMap((m) => m.content as Block[]);
}
