/**
 * The mock model's OpenAI Chat Completions dialect: the same scripted replies (written as
 * Anthropic content blocks, like the stored history) rendered as a Chat Completions answer,
 * whole or streamed as Server-Sent Events with the usage chunk at the end when asked for.
 */
import type { ServerResponse } from "node:http";
import type { ReplyStep } from "../mock-protocol";

const DEFAULT_USAGE = { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

const FINISH_REASONS: Record<string, string> = {
  end_turn: "stop",
  tool_use: "tool_calls",
  max_tokens: "length",
  refusal: "content_filter",
  stop_sequence: "stop",
};

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  429: "rate_limit_exceeded",
};

export function openAiError(status: number): unknown {
  const type = ERROR_TYPES[status] ?? "server_error";
  return { error: { message: `mock ${type} (${status})`, type, code: null } };
}

let completionCounter = 0;

interface Rendered {
  /** Thinking blocks, sent as DeepSeek's `reasoning_content`. */
  reasoning: string;
  text: string;
  calls: { id: string; name: string; arguments: string }[];
  finish: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number; prompt_tokens_details: { cached_tokens: number } };
}

function render(reply: ReplyStep["reply"]): Rendered {
  const text = reply.content.flatMap((b) => (b.type === "text" && typeof b.text === "string" ? [b.text] : [])).join("");
  const reasoning = reply.content.flatMap((b) => (b.type === "thinking" && typeof b.thinking === "string" ? [b.thinking] : [])).join("");
  const calls = reply.content.flatMap((b) =>
    b.type === "tool_use" ? [{ id: String(b.id), name: String(b.name), arguments: JSON.stringify(b.input ?? {}) }] : [],
  );
  const stop = reply.stop_reason ?? (calls.length ? "tool_use" : "end_turn");
  const usage = { ...DEFAULT_USAGE, ...reply.usage };
  // Chat Completions counts cached prompt tokens inside prompt_tokens.
  const prompt = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
  return {
    reasoning,
    text,
    calls,
    finish: FINISH_REASONS[stop] ?? stop,
    usage: {
      prompt_tokens: prompt,
      completion_tokens: usage.output_tokens,
      total_tokens: prompt + usage.output_tokens,
      prompt_tokens_details: { cached_tokens: usage.cache_read_input_tokens },
    },
  };
}

/** Answers a Chat Completions request; `stream` and `includeUsage` come from its body. */
export function sendChatCompletion(
  res: ServerResponse,
  model: string,
  reply: ReplyStep["reply"],
  options: { stream: boolean; includeUsage: boolean },
): void {
  const rendered = render(reply);
  const id = `chatcmpl_mock_${++completionCounter}`;
  const created = Math.floor(Date.now() / 1000);
  if (!options.stream) {
    const body = JSON.stringify({
      id,
      object: "chat.completion",
      created,
      model,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: rendered.text === "" ? null : rendered.text,
            ...(rendered.reasoning !== "" ? { reasoning_content: rendered.reasoning } : {}),
            ...(rendered.calls.length
              ? {
                  tool_calls: rendered.calls.map((c) => ({
                    id: c.id,
                    type: "function",
                    function: { name: c.name, arguments: c.arguments },
                  })),
                }
              : {}),
          },
          finish_reason: rendered.finish,
        },
      ],
      usage: rendered.usage,
    });
    res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) });
    res.end(body);
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices, ...extra })}\n\n`);
  const delta = (d: Record<string, unknown>, finish: string | null = null) => send([{ index: 0, delta: d, finish_reason: finish }]);
  delta({ role: "assistant", content: "" });
  for (const piece of halves(rendered.reasoning)) delta({ reasoning_content: piece });
  // Text and arguments arrive in pieces, as real streams send them.
  for (const piece of halves(rendered.text)) delta({ content: piece });
  rendered.calls.forEach((call, index) => {
    delta({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] });
    for (const piece of halves(call.arguments)) delta({ tool_calls: [{ index, function: { arguments: piece } }] });
  });
  delta({}, rendered.finish);
  if (options.includeUsage) send([], { usage: rendered.usage });
  res.end("data: [DONE]\n\n");
}

function halves(text: string): string[] {
  if (text === "") return [];
  const middle = Math.ceil(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)].filter((piece) => piece !== "");
}
