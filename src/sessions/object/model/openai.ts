/**
 * The OpenAI-compatible Chat Completions provider (OpenAI and the self-hosted and local
 * servers that speak the same API), over plain `fetch`. Given `onText`, it asks for a stream, with
 * the usage at its end, else for one JSON body; a server that answers with one JSON body instead
 * of a stream is read as well. Every
 * failure becomes a `ModelError` through the one mapping in `provider-errors.ts`.
 */
import { ChatStream, readChatStream } from "./openai-stream";
import { toServerRequest, toContent, toStopReason, toUsage, wholeParts } from "./openai-wire";
import { contentPieces, ReasoningDetails, reasoningOf } from "./openai-reasoning";
import { answeringModel, ModelError, type ModelProvider, type ModelResponse, stopFields } from "./provider";
import { httpProviderError, networkProviderError, notConfiguredError } from "./provider-errors";

export interface OpenAiOptions {
  /** With or without a trailing `/v1`: both `https://api.openai.com` and `http://host:8000/v1` work. */
  baseUrl: string;
  apiKey: string | undefined;
  fetchImpl?: typeof fetch;
  now?: () => number;
}

export function chatCompletionsUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return /\/v1$/.test(base) ? `${base}/chat/completions` : `${base}/v1/chat/completions`;
}

export function openAiProvider(options: OpenAiOptions): ModelProvider {
  const fetchImpl = options.fetchImpl ?? fetch;
  const now = options.now ?? Date.now;
  return {
    async complete(request, signal, onText) {
      if (!options.apiKey) throw notConfiguredError();
      let response: Response;
      try {
        response = await fetchImpl(chatCompletionsUrl(options.baseUrl), {
          method: "POST",
          headers: {
            "content-type": "application/json",
            authorization: `Bearer ${options.apiKey}`,
            ...(request.traceparent ? { traceparent: request.traceparent } : {}),
          },
          body: JSON.stringify(toServerRequest(request, onText !== undefined, options.baseUrl)),
          signal,
        });
      } catch (err) {
        throw networkProviderError("openai", err, signal);
      }
      if (!response.ok) {
        let text: string;
        try {
          text = await response.text();
        } catch (err) {
          throw networkProviderError("openai", err, signal);
        }
        throw httpProviderError("openai", response, text, now());
      }
      const type = response.headers.get("content-type") ?? "";
      try {
        if (type.includes("text/event-stream") && response.body) {
          // With `response_format` the text is the structured answer itself: JSON, judged whole
          // once it has all arrived, so it is not streamed (see `ModelProvider.complete`);
          // reasoning and a refusal are prose either way.
          const stream = new ChatStream({
            onDelta: (index, text, part) => {
              if (part === "reasoning") onText?.({ index, text, kind: "reasoning" });
              else if (part === "refusal" || !request.output) onText?.({ index, text });
            },
          });
          await readChatStream(response.body, stream);
          return stream.result(newToolCallId);
        }
        return fromJson(await response.text());
      } catch (err) {
        if (err instanceof ModelError) throw err;
        throw networkProviderError("openai", err, signal);
      }
    },
  };
}

/** A whole answer in one body: a server that does not stream, or ignores `stream`. */
function fromJson(raw: string): ModelResponse {
  let body: { choices?: unknown; usage?: unknown; model?: unknown };
  try {
    body = JSON.parse(raw);
  } catch {
    throw new ModelError("the model answered with a body that is not JSON", true, 200);
  }
  const choice = (Array.isArray(body?.choices) ? body.choices[0] : undefined) as
    | {
        message?: {
          content?: unknown;
          refusal?: unknown;
          tool_calls?: unknown;
          function_call?: { name?: unknown; arguments?: unknown } | null;
          reasoning_content?: unknown;
          reasoning?: unknown;
          reasoning_details?: unknown;
        };
        finish_reason?: unknown;
      }
    | undefined;
  if (!choice?.message) throw new ModelError("the model answered without a message", true, 200);
  const message = choice.message;
  const pieces = contentPieces(message.content);
  const details = new ReasoningDetails();
  details.add(message.reasoning_details);
  const said = (part: "reasoning" | "text") => pieces.flatMap((piece) => (piece.part === part ? [piece.text] : [])).join("");
  const parts = wholeParts(
    reasoningOf(message) || said("reasoning") || details.text(),
    said("text"),
    typeof message.refusal === "string" ? message.refusal : "",
    details.items,
  );
  const listed = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  // A legacy `function_call` (no id) is the call only of an answer without `tool_calls`: beside
  // them it is a server's empty stub or a mirror of a real call, which must not run twice.
  const legacy =
    listed.length === 0 && typeof message.function_call?.name === "string" && message.function_call.name !== ""
      ? [{ function: message.function_call }]
      : [];
  const calls = [...listed, ...legacy].map((call: { id?: unknown; function?: { name?: unknown; arguments?: unknown } }) => ({
    id: typeof call?.id === "string" ? call.id : null,
    name: typeof call?.function?.name === "string" ? call.function.name : "",
    arguments: typeof call?.function?.arguments === "string" ? call.function.arguments : "",
  }));
  const finish = typeof choice.finish_reason === "string" ? choice.finish_reason : null;
  return {
    content: toContent(parts, calls, newToolCallId),
    ...stopFields(toStopReason(finish, parts.refusal !== ""), finish),
    usage: toUsage(body.usage),
    ...answeringModel(body.model),
  };
}

/** Some servers send tool calls without ids; every tool_use needs one to be answered. */
function newToolCallId(): string {
  return `call_${crypto.randomUUID().replaceAll("-", "")}`;
}
