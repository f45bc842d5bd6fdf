/**
 * The OpenAPI 3.1 document of the gateway: its fixed header (info, servers, tags) and the
 * document generated from the routes' zod schemas, built once per app.
 */
import type { App } from "./context";

export const TAGS = [
  { name: "System", description: "Liveness, this document, the API reference and the platform's public keys." },
  { name: "Auth", description: "Exchanging an API key for a short-lived access token." },
  { name: "Sessions", description: "Agent sessions: create, run, control and observe." },
  { name: "Tenant", description: "The caller's own tenant: limits, usage and the webhook secret." },
  { name: "API keys", description: "Keys a tenant admin creates for backends." },
  { name: "Admin", description: "Platform administration: every tenant, its limits and suspension." },
] as const;

export type Tag = (typeof TAGS)[number]["name"];

export const OPENAPI_OBJECT_CONFIG = {
  openapi: "3.1.0",
  info: {
    title: "Agent Platform API",
    version: "1.0.0",
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
    document = app.getOpenAPI31Document(OPENAPI_OBJECT_CONFIG);
    documents.set(app, document);
  }
  return document;
}
