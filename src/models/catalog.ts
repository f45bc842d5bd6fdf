/**
 * Model ids, providers and the models a session may choose. A model id may carry its provider
 * as a prefix, `anthropic:…` or `openai:…` (an OpenAI-compatible Chat Completions server);
 * without one it is Anthropic's. The platform's list (`MODELS`) and a tenant's narrower list
 * hold ids or prefix patterns ending in `*`. Pure.
 */

export const PROVIDERS = ["anthropic", "openai"] as const;

/** The provider-hosted tools a session may declare (`type: "provider"`); which provider and model has which is below. */
export const PROVIDER_TOOL_NAMES = ["web_search", "web_fetch", "code_execution"] as const;
export type ProviderToolName = (typeof PROVIDER_TOOL_NAMES)[number];
export type Provider = (typeof PROVIDERS)[number];

export interface ModelRef {
  provider: Provider;
  /** The id the provider knows, without the prefix. */
  name: string;
}

/** One entry of `MODELS`: an id or a pattern, and what is not known of the model: its input size, whether it takes images. */
export interface CatalogEntry {
  /** Canonical (`provider:name`), or `*` for any model. A trailing `*` matches any rest. */
  pattern: string;
  contextTokens: number | null;
  /** Null: as its family is known to, else its provider's default. */
  images?: boolean | null;
  /** Whether the model takes reasoning settings; null: as its family is known to, else no. */
  reasoning?: boolean | null;
  /** The provider-hosted tools the model has (Anthropic models only); null: as its family is known to, else none. */
  providerTools?: readonly ProviderToolName[] | null;
}

/** Null: `MODELS` is not set and any model id is accepted. */
export type ModelCatalog = readonly CatalogEntry[] | null;

/**
 * Context windows of known model families, by the start of the provider's model name. A
 * model of neither provider's known families gets its provider's default; an operator can
 * state the right size in `MODELS` (`{ "id": "openai:llama3", "context_tokens": 8192 }`).
 */
const KNOWN_CONTEXT_TOKENS: readonly [provider: Provider, prefix: string, tokens: number][] = [
  ["anthropic", "claude-", 200_000],
  ["openai", "gpt-4.1", 1_047_576],
  ["openai", "gpt-5", 400_000],
  ["openai", "gpt-4o", 128_000],
  ["openai", "gpt-4-turbo", 128_000],
  ["openai", "o1", 200_000],
  ["openai", "o3", 200_000],
  ["openai", "o4", 200_000],
];
/** Every Claude model has at least this; self-hosted servers often have much less, hence the small default. */
export const DEFAULT_CONTEXT_TOKENS: Record<Provider, number> = { anthropic: 200_000, openai: 32_000 };

/**
 * Which known families take images, by the start of the model name; the first match decides.
 * Every Claude model since Claude 3 takes images, so Anthropic's default is yes; an
 * OpenAI-compatible server may run any model, so its default is no unless the family is known
 * or `MODELS` says so (`{ "id": "openai:llava", "images": true }`).
 */
const KNOWN_IMAGE_INPUT: readonly [provider: Provider, prefix: string, images: boolean][] = [
  ["anthropic", "claude-2", false],
  ["anthropic", "claude-instant", false],
  ["openai", "gpt-4o", true],
  ["openai", "gpt-4.1", true],
  ["openai", "gpt-4-turbo", true],
  ["openai", "gpt-5", true],
  ["openai", "o1-mini", false],
  ["openai", "o3-mini", false],
  ["openai", "o1", true],
  ["openai", "o3", true],
  ["openai", "o4", true],
];
export const DEFAULT_IMAGE_INPUT: Record<Provider, boolean> = { anthropic: true, openai: false };

/**
 * Which known families take reasoning settings, by the start of the model name; the first match
 * decides. Claude 3.7 and the Claude 4 families have extended thinking; OpenAI's o-series and
 * gpt-5 take `reasoning_effort` (o1-mini, o1-preview and the chat gpt-5 do not). Any other model
 * does not, unless `MODELS` says so (`{ "id": "openai:deepseek-reasoner", "reasoning": true }`).
 */
const KNOWN_REASONING: readonly [provider: Provider, prefix: string, reasoning: boolean][] = [
  ["anthropic", "claude-3-7-sonnet", true],
  ["anthropic", "claude-sonnet-4", true],
  ["anthropic", "claude-opus-4", true],
  ["anthropic", "claude-haiku-4", true],
  ["openai", "o1-mini", false],
  ["openai", "o1-preview", false],
  ["openai", "gpt-5-chat", false],
  ["openai", "o1", true],
  ["openai", "o3", true],
  ["openai", "o4", true],
  ["openai", "gpt-5", true],
];

export function parseModel(id: string): ModelRef {
  const colon = id.indexOf(":");
  const prefix = colon > 0 ? id.slice(0, colon) : "";
  if ((PROVIDERS as readonly string[]).includes(prefix)) return { provider: prefix as Provider, name: id.slice(colon + 1) };
  return { provider: "anthropic", name: id };
}

export function canonicalModel(id: string): string {
  if (id === "*") return id;
  const { provider, name } = parseModel(id);
  return `${provider}:${name}`;
}

/** Whether `pattern` (canonical) admits the model `id`. */
export function matches(pattern: string, id: string): boolean {
  const model = canonicalModel(id);
  if (pattern === "*") return true;
  return pattern.endsWith("*") ? model.startsWith(pattern.slice(0, -1)) : model === pattern;
}

/** Whether every model `narrower` admits is admitted by `wider`. */
export function covers(wider: string, narrower: string): boolean {
  if (wider === "*") return true;
  if (narrower === "*") return false;
  if (!narrower.endsWith("*")) return matches(wider, narrower);
  return wider.endsWith("*") && narrower.startsWith(wider.slice(0, -1));
}

/** Whether a session may choose `id`: the platform's list, then the tenant's (null: no narrowing). */
export function isModelAllowed(catalog: ModelCatalog, tenantModels: readonly string[] | null, id: string): boolean {
  const platform = catalog === null || catalog.some((entry) => matches(entry.pattern, id));
  const tenant = tenantModels === null || tenantModels.some((pattern) => matches(canonicalModel(pattern), id));
  return platform && tenant;
}

/** The tenant's entries that the platform's list does not cover; a narrowing may not widen. */
export function uncoveredModels(catalog: ModelCatalog, tenantModels: readonly string[]): string[] {
  if (catalog === null) return [];
  return tenantModels.filter((model) => !catalog.some((entry) => covers(entry.pattern, canonicalModel(model))));
}

/**
 * The model of a session that names none: the platform's default while the tenant allows it,
 * else the tenant's first exact id; null when the tenant allows no exact id.
 */
export function defaultModelFor(defaultModel: string, catalog: ModelCatalog, tenantModels: readonly string[] | null): string | null {
  if (isModelAllowed(catalog, tenantModels, defaultModel)) return defaultModel;
  return tenantModels?.find((model) => !model.endsWith("*") && isModelAllowed(catalog, tenantModels, model)) ?? null;
}

/** The model's input size in tokens: what `MODELS` says, else its family's, else its provider's default. */
export function contextTokensFor(catalog: ModelCatalog, id: string): number {
  const stated = catalog?.find((entry) => entry.contextTokens !== null && matches(entry.pattern, id));
  if (stated?.contextTokens) return stated.contextTokens;
  const { provider, name } = parseModel(id);
  const known = KNOWN_CONTEXT_TOKENS.find(([p, prefix]) => p === provider && name.startsWith(prefix));
  return known ? known[2] : DEFAULT_CONTEXT_TOKENS[provider];
}

/** Whether the model takes images in user messages: what `MODELS` says, else its family's, else its provider's default. */
export function acceptsImages(catalog: ModelCatalog, id: string): boolean {
  const stated = catalog?.find((entry) => typeof entry.images === "boolean" && matches(entry.pattern, id));
  if (stated) return stated.images === true;
  const { provider, name } = parseModel(id);
  const known = KNOWN_IMAGE_INPUT.find(([p, prefix]) => p === provider && name.startsWith(prefix));
  return known ? known[2] : DEFAULT_IMAGE_INPUT[provider];
}

/** Whether the model takes a session's `reasoning`: what `MODELS` says, else its family's, else no. */
export function acceptsReasoning(catalog: ModelCatalog, id: string): boolean {
  const stated = catalog?.find((entry) => typeof entry.reasoning === "boolean" && matches(entry.pattern, id));
  if (stated) return stated.reasoning === true;
  const { provider, name } = parseModel(id);
  return KNOWN_REASONING.find(([p, prefix]) => p === provider && name.startsWith(prefix))?.[2] ?? false;
}

/**
 * What an OpenAI-compatible server wants back of a model's reasoning on later turns, on an
 * assistant message with tool calls: `reasoning_content` (GLM, Qwen: the text, when there is
 * some), `reasoning_content_always` (DeepSeek: on every such message, `""` when the turn had no
 * reasoning, or it refuses the next request), `reasoning_details` (OpenRouter: its details as
 * received, whatever the family), `thinking_chunks` (Mistral's API: every assistant turn's
 * content as `thinking` and `text` chunks), `reasoning` (gpt-oss on Groq: the text as `reasoning`,
 * which keeps its analysis through a tool loop as the harmony format asks; Groq refuses
 * `reasoning_content`), `none` (other models on Groq, gpt-oss elsewhere). Details a server gave are sent back to it under any rule but `none` and
 * `thinking_chunks`.
 */
export type ReasoningReplay =
  "reasoning_content" | "reasoning_content_always" | "reasoning_details" | "thinking_chunks" | "reasoning" | "none";

/**
 * Servers whose rule is known, by host, or by a path segment of a gateway's URL that names the
 * provider (Cloudflare AI Gateway: `…/{account}/{gateway}/groq`). The server decides first: the
 * same model name means different things on Groq, OpenRouter or its maker's API.
 */
const KNOWN_SERVERS: readonly [host: string, segment: string, replay: ReasoningReplay][] = [
  ["api.groq.com", "groq", "none"],
  ["openrouter.ai", "openrouter", "reasoning_details"],
  ["api.mistral.ai", "mistral", "thinking_chunks"],
  ["api.deepseek.com", "deepseek", "reasoning_content_always"],
];

/** On a server the catalog does not know, by the start of the model's name; the first match decides. */
const KNOWN_REASONING_REPLAY: readonly [prefix: string, replay: ReasoningReplay][] = [
  ["deepseek", "reasoning_content_always"],
  ["glm", "reasoning_content"],
  ["qwen", "reasoning_content"],
  ["qwq", "reasoning_content"],
  ["magistral", "thinking_chunks"],
  ["mistral-", "thinking_chunks"],
  ["gpt-oss", "none"],
  ["openai/gpt-oss", "none"],
];

/** The known server at `baseUrl`, by host or a gateway's provider segment; null for any other. */
function knownServer(baseUrl: string): ReasoningReplay | null {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return null;
  }
  const host = url.hostname.toLowerCase();
  const segments = url.pathname.toLowerCase().split("/");
  const known = KNOWN_SERVERS.find(([h, segment]) => host === h || host.endsWith(`.${h}`) || segments.includes(segment));
  return known?.[2] ?? null;
}

/**
 * What the server at `baseUrl` wants back of an `openai:` model's reasoning: the server's rule
 * when it is known, else the family's; unknown families on unknown servers (vLLM, Ollama, a
 * proxy): `reasoning_content`, which those servers ignore.
 */
export function reasoningReplayFor(baseUrl: string, name: string): ReasoningReplay {
  const server = knownServer(baseUrl);
  const lower = name.toLowerCase();
  if (server === "none" && /^(openai\/)?gpt-oss/.test(lower)) return "reasoning";
  if (server) return server;
  return KNOWN_REASONING_REPLAY.find(([prefix]) => lower.startsWith(prefix))?.[1] ?? "reasoning_content";
}

const EVERY_PROVIDER_TOOL: readonly ProviderToolName[] = ["web_search", "web_fetch", "code_execution"];
/**
 * Which known families have the provider's own tools, by the start of the model name; the first
 * match decides. Anthropic's server tools (web search, web fetch, code execution) run on Claude
 * 3.5 Haiku, 3.7 Sonnet and the Claude 4 families; an OpenAI-compatible server is not asked for
 * any (Chat Completions has no such tools), so none is known there.
 */
const KNOWN_PROVIDER_TOOLS: readonly [provider: Provider, prefix: string, tools: readonly ProviderToolName[]][] = [
  ["anthropic", "claude-3-5-haiku", EVERY_PROVIDER_TOOL],
  ["anthropic", "claude-3-7-sonnet", EVERY_PROVIDER_TOOL],
  ["anthropic", "claude-sonnet-4", EVERY_PROVIDER_TOOL],
  ["anthropic", "claude-opus-4", EVERY_PROVIDER_TOOL],
  ["anthropic", "claude-haiku-4", EVERY_PROVIDER_TOOL],
];

/**
 * The provider tools the model has: what `MODELS` says (`{ "id": "anthropic:claude-x", "provider_tools": ["web_search"] }`),
 * else its family's, else none. Only Anthropic's wire carries them: an `openai:` model has none whatever `MODELS` says.
 */
export function providerToolsFor(catalog: ModelCatalog, id: string): readonly ProviderToolName[] {
  const { provider, name } = parseModel(id);
  if (provider !== "anthropic") return [];
  const stated = catalog?.find((entry) => Array.isArray(entry.providerTools) && matches(entry.pattern, id));
  if (stated?.providerTools) return stated.providerTools;
  return KNOWN_PROVIDER_TOOLS.find(([p, prefix]) => p === provider && name.startsWith(prefix))?.[2] ?? [];
}
