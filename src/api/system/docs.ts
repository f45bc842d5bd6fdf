/**
 * `GET /docs`: the interactive API reference (Scalar), reading `/openapi.json`. Its script is
 * the pinned `@scalar/api-reference` bundle, served by this Worker from its static assets
 * (`scripts/docs-assets.mjs` puts it there), so the page works offline and runs nothing from
 * another origin; its Content-Security-Policy allows scripts from this origin only.
 */
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { App, AppEnv } from "../context";
import { PUBLIC_ERRORS, errorResponses } from "../errors";
import { NO_AUTH } from "../security";
import { registerStaticAssets } from "./static-assets";

/** The same path `scripts/docs-assets.mjs` writes to under the assets directory. */
export const REFERENCE_SCRIPT_URL = "/docs/assets/api-reference.js";
const ASSETS_PREFIX = "/docs/assets/";

/**
 * Scripts and everything else from this origin only. Styles allow inline: the bundle injects
 * its stylesheet at run time, and a style cannot run code. No frames, no forms, no `<base>`.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * Nothing that calls or offers another origin: fonts from the page's own CSS instead of Scalar's
 * font CDN, no telemetry, and Scalar's hosted features off. On a local address the bundle turns
 * on by itself its "Ask AI" agent (api.scalar.com), "Generate MCP" and the developer toolbar
 * (its Share and Deploy upload the document to Scalar's dashboard); each is switched off here by
 * its own setting, and so is the "Open API Client" link to client.scalar.com. The in-page request
 * client stays: it calls this origin, with no proxy.
 */
const REFERENCE_CONFIGURATION = {
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: "never",
  agent: { disabled: true },
  mcp: { disabled: true },
  hideClientButton: true,
};

export const route = createRoute({
  method: "get",
  path: "/docs",
  operationId: "getApiReference",
  summary: "Interactive API reference",
  tags: ["System"],
  security: NO_AUTH,
  responses: {
    200: { description: "An HTML page.", content: { "text/html": { schema: z.string() } } },
    ...errorResponses(...PUBLIC_ERRORS),
  },
});

/**
 * The page, with no inline script: the configuration travels in a JSON data block (which the
 * browser never runs) and the bundle mounts itself next to it.
 */
export function docsPage(): string {
  const configuration = escapeAttribute(JSON.stringify(REFERENCE_CONFIGURATION));
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Agent Platform API</title>
  </head>
  <body>
    <script id="api-reference" type="application/json" data-url="/openapi.json" data-configuration="${configuration}"></script>
    <script src="${REFERENCE_SCRIPT_URL}"></script>
  </body>
</html>
`;
}

export const handler: RouteHandler<typeof route, AppEnv> = (c) => {
  c.header("Content-Security-Policy", DOCS_CONTENT_SECURITY_POLICY);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
  return c.html(docsPage(), 200);
};

/** The page's script, from the Worker's static assets. */
export function registerDocsAssets(app: App): void {
  registerStaticAssets(app, ASSETS_PREFIX);
}

export function escapeAttribute(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
