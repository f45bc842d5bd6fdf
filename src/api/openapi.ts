/**
 * The OpenAPI 3.1 document of the gateway: its fixed header (info, servers, tags) and the
 * document generated from the routes' zod schemas, built once per app, with the headers every
 * response carries (and those of every authenticated one) added in one pass, so no route can
 * forget them.
 */
import type { App } from "./context";
import { IDEMPOTENCY_KEY_PARAM, isReplayable } from "./middleware/idempotency";
import { problemResponseRef } from "./errors";
import { headerRefs } from "./openapi-headers";

export const TAGS = [
  { name: "System", description: "Liveness, this document, the API reference and the platform's public keys." },
  { name: "Auth", description: "Exchanging an API key for a short-lived access token." },
  { name: "Sessions", description: "Agent sessions: create, run, control and observe." },
  {
    name: "Agents",
    description:
      "Named, versioned session configurations: define once, start sessions from a version or an alias, roll back by moving the alias.",
  },
  {
    name: "Evals",
    description:
      "Datasets of cases and eval runs: an agent version over a dataset as ordinary sessions, scored per item, compared between versions.",
  },
  {
    name: "Chat",
    description:
      "An agent behind the AI SDK's chat transport (`useChat`): a chat id names the caller's session of the agent; turns stream as UI message parts.",
  },
  { name: "MCP", description: "The tenant's live agents as tools of an MCP server (Streamable HTTP)." },
  {
    name: "A2A",
    description: "Each agent as an Agent2Agent server (JSON-RPC): a context is the caller's session of the agent, a task one of its runs.",
  },
  {
    name: "AG-UI",
    description:
      "An agent behind AG-UI (`HttpAgent` of `@ag-ui/client`): a thread id names the caller's session of the agent; runs stream as AG-UI events.",
  },
  {
    name: "Memory",
    description:
      "A tenant's long-term store: items in namespaces, searched by relevance, kept in versions, read and written by people and by sessions' memory tools.",
  },
  {
    name: "Credentials",
    description:
      "The credential vault: the tenant's and its end users' secrets, sealed at rest, which tools name and the platform adds to their requests only; no response shows one.",
  },
  {
    name: "Schedules",
    description: "Scheduled runs: a cron expression in a time zone that creates a session, or sends a message to one, at each slot.",
  },
  { name: "Tenant", description: "The caller's own tenant: limits, usage and the webhook secret." },
  { name: "API keys", description: "Keys a tenant admin creates for backends." },
  { name: "Admin", description: "Platform administration: every tenant, its limits and suspension." },
  { name: "Audit log", description: "Every administrative change, who made it and from where: the tenant's own log and the platform's." },
  { name: "Webhooks", description: "Requests the platform sends to tenants' URLs, signed with the tenant's webhook secret." },
] as const;

export type Tag = (typeof TAGS)[number]["name"];

export const OPENAPI_OBJECT_CONFIG = {
  openapi: "3.1.0",
  info: {
    title: "Agent Platform API",
    version: "1.0.0",
    license: { name: "Apache-2.0", identifier: "Apache-2.0" },
    description:
      "A multi-tenant platform for hosted AI agents. Errors are RFC 9457 problem documents; every response carries `X-Request-Id`.",
  },
  // Relative, so the committed document is the same for every deployment.
  servers: [{ url: "/", description: "This deployment" }],
  tags: TAGS.map((tag) => ({ ...tag })),
};

export type OpenApiDocument = ReturnType<App["getOpenAPI31Document"]>;

const documents = new WeakMap<App, OpenApiDocument>();

/** The app's document; generated on first use, since routes are fixed once the app is built. */
export function openApiDocument(app: App): OpenApiDocument {
  let document = documents.get(app);
  if (!document) {
    document = withIntegerFormats(withCommonResponseHeaders(withBodyCapErrors(app.getOpenAPI31Document(OPENAPI_OBJECT_CONFIG))));
    documents.set(app, document);
  }
  return document;
}

interface Operation {
  security?: Record<string, string[]>[];
  parameters?: { name?: string; in?: string }[];
  responses?: Record<string, { headers?: Record<string, unknown> }>;
}

const METHODS = ["get", "put", "post", "delete", "patch"] as const;

/**
 * Whether an idempotent route's answer with this status may be a replay: stored answers are
 * replayed, and 401 and 403 are decided before the key is looked at.
 */
function mayBeReplayed(status: number): boolean {
  return isReplayable(status) && status !== 401 && status !== 403;
}

/**
 * Whether an authenticated route's answer with this status may carry the rate-limit fields:
 * every answer after admission. A 401 is decided before it, and a 503 when the tenant's index
 * could not be asked.
 */
function carriesRateLimit(status: number): boolean {
  return status !== 401 && status !== 503;
}

/**
 * Pure: `X-Request-Id` on every response, `Idempotent-Replayed` wherever a replay may answer,
 * and the rate-limit fields on the answers of authenticated routes.
 */
export function withCommonResponseHeaders(document: OpenApiDocument): OpenApiDocument {
  const paths = (document.paths ?? {}) as Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  for (const item of Object.values(paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation?.responses) continue;
      const idempotent = (operation.parameters ?? []).some((p) => p.in === "header" && p.name === IDEMPOTENCY_KEY_PARAM);
      const authenticated = (operation.security ?? []).length > 0;
      for (const [status, response] of Object.entries(operation.responses)) {
        const common =
          idempotent && mayBeReplayed(Number(status)) ? headerRefs("RequestId", "IdempotentReplayed") : headerRefs("RequestId");
        const rate = authenticated && carriesRateLimit(Number(status)) ? headerRefs("RateLimitPolicy", "RateLimit") : {};
        response.headers = { ...common, ...rate, ...response.headers };
      }
    }
  }
  return document;
}

/** The methods whose requests may carry a body, and so meet the body cap. */
const METHODS_WITH_BODY = new Set(["post", "put", "patch"]);

/**
 * Pure: a 413 on every operation whose method may carry a body, whether or not the route takes
 * one. The cap is the body-limit middleware's, for every route alike: a declared length over it
 * is refused before the route runs (a route that takes no body never reads one sent without a
 * length, so it is ignored there).
 */
export function withBodyCapErrors(document: OpenApiDocument): OpenApiDocument {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const item of Object.values(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (METHODS_WITH_BODY.has(method) && operation.responses && !operation.responses["413"])
        operation.responses["413"] = problemResponseRef(413) as Record<string, unknown>;
    }
  }
  return document;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/**
 * Pure: every integer schema gets the `format` its bounds allow, so generators pick the right
 * type: `int32` when its minimum and maximum fit, else `int64` (zod's integers are safe integers).
 * Examples are values, not schemas, and are left alone.
 */
export function withIntegerFormats(document: OpenApiDocument): OpenApiDocument {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== "object") return;
    const schema = node as Record<string, unknown>;
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (types.includes("integer") && schema.format === undefined) {
      const { minimum, maximum } = schema;
      const fits = typeof minimum === "number" && typeof maximum === "number" && minimum >= INT32_MIN && maximum <= INT32_MAX;
      schema.format = fits ? "int32" : "int64";
    }
    for (const [key, value] of Object.entries(schema)) if (key !== "example" && key !== "examples") visit(value);
  };
  visit(document);
  return document;
}
