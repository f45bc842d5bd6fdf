/**
 * `npm run token -- --tenant acme --scope "sessions:read sessions:write"`: prints a platform
 * JWT for any tenant, subject and scopes, signed with the development key in `.dev.vars`, so
 * the local gateway accepts it. The token alone goes to stdout:
 *
 *   export TOKEN=$(npm run -s token -- --tenant acme --scope "platform:admin")
 *
 * A tenant needs no setup: it comes to exist the first time a token of it is used.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ALL_SCOPES, TENANT_ID_PATTERN } from "../src/auth/principal.ts";
import { DEV_TOKEN_TTL_SECONDS, ensureDevVars, mintDevToken, WRANGLER_JSON } from "./dev-vars.mjs";

/** The gateway's default for AUTH_MAX_TOKEN_AGE_SECONDS. */
const DEFAULT_MAX_TOKEN_AGE_SECONDS = 86_400;

const USAGE = `Usage: npm run token -- --tenant <id> [--scope "<scopes>"] [--subject <sub>] [--ttl <seconds>]

  --tenant   the tenant id (created on first use), e.g. acme
  --scope    space-separated, from: ${ALL_SCOPES.join(", ")}
             (default: "sessions:read sessions:write")
  --subject  the caller's subject, e.g. a user or a backend (default: dev-user)
  --ttl      lifetime in seconds (default: ${DEV_TOKEN_TTL_SECONDS})
  --config   another wrangler config; its issuer, and the .dev.vars beside it, are used`;

/** Pure: the token request from the command line, or the reason it is not one. */
export function parseTokenArgs(argv) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        tenant: { type: "string" },
        scope: { type: "string" },
        subject: { type: "string" },
        ttl: { type: "string" },
        config: { type: "string" },
        help: { type: "boolean" },
      },
    }));
  } catch (error) {
    return { error: error.message };
  }
  if (values.help) return { error: null };
  if (!values.tenant) return { error: "--tenant is required" };
  if (!TENANT_ID_PATTERN.test(values.tenant)) return { error: `not a tenant id: ${values.tenant}` };
  const scopes = (values.scope ?? "sessions:read sessions:write").split(/\s+/).filter(Boolean);
  const unknown = scopes.filter((scope) => !ALL_SCOPES.includes(scope));
  if (scopes.length === 0 || unknown.length > 0) return { error: `unknown scope: ${unknown.join(", ") || "(none given)"}` };
  const ttl = values.ttl === undefined ? DEV_TOKEN_TTL_SECONDS : Number(values.ttl);
  if (!Number.isInteger(ttl) || ttl < 1) return { error: `--ttl must be a positive number of seconds` };
  const configPath = values.config ? resolve(values.config) : WRANGLER_JSON;
  // The gateway refuses a token that lives longer than this; better to say so here.
  const maxAge = Number(JSON.parse(readFileSync(configPath, "utf8")).vars?.AUTH_MAX_TOKEN_AGE_SECONDS ?? DEFAULT_MAX_TOKEN_AGE_SECONDS);
  if (ttl > maxAge) return { error: `--ttl may be at most ${maxAge} s (AUTH_MAX_TOKEN_AGE_SECONDS)` };
  return { tenantId: values.tenant, subject: values.subject ?? "dev-user", scopes, ttlSeconds: ttl, configPath };
}

if (import.meta.url === new URL(process.argv[1] ?? "", "file:").href) {
  const request = parseTokenArgs(process.argv.slice(2));
  if ("error" in request) {
    if (request.error) console.error(`${request.error}\n`);
    console.error(USAGE);
    process.exit(request.error ? 2 : 0);
  }
  const devVars = join(dirname(request.configPath), ".dev.vars");
  const hadFile = existsSync(devVars);
  const { key, created } = await ensureDevVars({ path: devVars });
  // A new key means a platform already running still has the old one: say so, on stderr.
  if (created) console.error(`${hadFile ? "Added a signing key to" : "Created"} ${devVars}; restart \`npm start\` if it is running.`);
  console.log(await mintDevToken(key, request));
}
