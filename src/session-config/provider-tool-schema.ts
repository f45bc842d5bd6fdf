/** The declaration of a provider-hosted tool (`type: "provider"`): the provider's own options, bounded; which models have it is the catalog's. */
import { z } from "@hono/zod-openapi";
import { PROVIDER_TOOL_NAMES } from "./types";

/** Far above any real list; the provider's own cap is lower still. */
export const MAX_PROVIDER_TOOL_DOMAINS = 100;
export const MAX_DOMAIN_CHARS = 253;
const MAX_LOCATION_FIELD_CHARS = 100;
/** Anthropic takes any positive count; a run's own step limit bounds what it costs. */
export const MAX_PROVIDER_TOOL_USES = 1_000;
export const MAX_FETCH_CONTENT_TOKENS = 1_000_000;

/** A domain, optionally with a path (`example.com/blog`): no spaces or control characters. */
const DOMAIN_PATTERN = /^[^\s\x00-\x1f]+$/;
/** A place's name: one line of text. */
const LOCATION_PATTERN = /^[^\x00-\x1f]+$/;
const DomainsSchema = z
  .array(z.string().min(1).max(MAX_DOMAIN_CHARS).regex(DOMAIN_PATTERN, "Must be a domain, without spaces."))
  .max(MAX_PROVIDER_TOOL_DOMAINS);
const LocationField = z.string().min(1).max(MAX_LOCATION_FIELD_CHARS).regex(LOCATION_PATTERN, "Must be one line of text.").optional();

export const ProviderToolSchema = z
  .object({
    type: z.literal("provider"),
    name: z.enum(PROVIDER_TOOL_NAMES).openapi({ description: "The provider's tool: `web_search`, `web_fetch` or `code_execution`." }),
    max_uses: z.number().int().min(1).max(MAX_PROVIDER_TOOL_USES).optional().openapi({
      description: "At most this many uses in one model call (`web_search`, `web_fetch`).",
    }),
    allowed_domains: DomainsSchema.optional().openapi({
      description: "Only these domains (`web_search`, `web_fetch`); not with `blocked_domains`.",
    }),
    blocked_domains: DomainsSchema.optional().openapi({ description: "Never these domains (`web_search`, `web_fetch`)." }),
    user_location: z
      .object({
        type: z.literal("approximate"),
        city: LocationField,
        region: LocationField,
        country: LocationField,
        timezone: LocationField,
      })
      .strict()
      .optional()
      .openapi({ description: "Where results should be local to (`web_search`)." }),
    citations: z
      .object({ enabled: z.boolean() })
      .strict()
      .optional()
      .openapi({ description: "Cite the fetched page in the answer (`web_fetch`)." }),
    max_content_tokens: z.number().int().min(1).max(MAX_FETCH_CONTENT_TOKENS).optional().openapi({
      description: "A fetched page is cut to about this many tokens (`web_fetch`).",
    }),
  })
  .strict()
  .openapi("ProviderTool", {
    description:
      "A tool the model's provider runs inside its own answer (Anthropic's server tools: web search, web fetch, code execution). The platform " +
      "never runs it: its blocks and the answer's citations are kept as given and sent back. A model the catalog does not list with the tool is refused (400).",
  });
