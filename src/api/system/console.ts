/**
 * `GET /console`: the admin console, a single page that uses the public API only (console/src,
 * built into the Worker's static assets by `scripts/console-assets.mjs`). The page is static
 * text; its Content-Security-Policy lets it run only its own script, style itself only from its
 * own stylesheet, and talk only to this origin (the API and the events WebSocket).
 */
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import type { App, AppEnv } from "../context";
import { PUBLIC_ERRORS, errorResponses } from "../errors";
import { NO_AUTH } from "../security";
import { registerStaticAssets } from "./static-assets";

export const CONSOLE_PATH = "/console";
/** The files `scripts/console-assets.mjs` writes under the assets directory. */
const ASSETS_PREFIX = "/console/assets/";
export const CONSOLE_SCRIPT_URL = `${ASSETS_PREFIX}console.js`;
export const CONSOLE_STYLE_URL = `${ASSETS_PREFIX}console.css`;

/**
 * Nothing inline, nothing from another origin. `connect-src 'self'` covers the same-origin
 * WebSocket too. Trusted Types with no policy: no code path may hand a string to `innerHTML` or
 * a script sink, so a message or a tool output can only ever be text. No frames of the page
 * (clickjacking on the approve buttons), no forms posted anywhere, no `<base>`.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join("; ");

export const route = createRoute({
  method: "get",
  path: CONSOLE_PATH,
  operationId: "getConsole",
  summary: "Admin console",
  description:
    "A page for tenant and platform admins: sessions live, approvals, cancels, tenants and their limits. It signs in with a token or an API key and calls this API.",
  tags: ["System"],
  security: NO_AUTH,
  responses: {
    200: { description: "An HTML page.", content: { "text/html": { schema: z.string() } } },
    ...errorResponses(...PUBLIC_ERRORS),
  },
});

/** The page: an empty mount point, the stylesheet and the module script. The favicon is inline data, so no request 404s. */
export function consolePage(): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="color-scheme" content="light dark" />
    <title>Agent Platform console</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${CONSOLE_STYLE_URL}" />
    <script type="module" src="${CONSOLE_SCRIPT_URL}"></script>
  </head>
  <body>
    <div id="app"><p class="boot">Loading the console…</p></div>
    <noscript><p class="boot">The console needs JavaScript.</p></noscript>
  </body>
</html>
`;
}

export const handler: RouteHandler<typeof route, AppEnv> = (c) => {
  c.header("Content-Security-Policy", CONSOLE_CONTENT_SECURITY_POLICY);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
  // Another page of another origin opened from here cannot reach back into this one.
  c.header("Cross-Origin-Opener-Policy", "same-origin");
  c.header("Cache-Control", "no-cache");
  return c.html(consolePage(), 200);
};

/** The bundle, and `/console/` sent to the page's one address (the app routes after `#`). */
export function registerConsoleAssets(app: App): void {
  app.get(`${CONSOLE_PATH}/`, (c) => c.redirect(CONSOLE_PATH, 308));
  registerStaticAssets(app, ASSETS_PREFIX);
}
