/**
 * Writes `.dev.vars` (git-ignored) for local development with a freshly generated
 * `AUTH_SIGNING_KEY`, `AUTH_API_KEY_SECRET` and `VAULT_KEYS`, reads it back, and mints development
 * tokens signed with it. An existing signing key is kept (tokens already handed out stay valid)
 * unless `--force` is given; an existing API-key secret and vault key are always kept (API keys
 * issued with the one, credentials sealed under the other stay usable).
 *
 *   node scripts/dev-vars.mjs          create .dev.vars if it has no signing key
 *   node scripts/dev-vars.mjs --force  replace the signing key
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { parseEnv } from "node:util";
import { importJWK, SignJWT } from "jose";
import { generateApiKeySecret, generateSigningKey } from "../src/auth/dev-signing-key.ts";
import { generateVaultKey } from "../src/vault/keys.ts";

export const DEV_VARS = fileURLToPath(new URL("../.dev.vars", import.meta.url));
export const WRANGLER_JSON = fileURLToPath(new URL("../wrangler.json", import.meta.url));
const KEY_NAME = "AUTH_SIGNING_KEY";
const API_KEY_SECRET_NAME = "AUTH_API_KEY_SECRET";
const VAULT_KEYS_NAME = "VAULT_KEYS";
/** A working day: long enough to explore the API, short enough not to become a credential. */
export const DEV_TOKEN_TTL_SECONDS = 12 * 60 * 60;

/** The variables in a `.dev.vars` file (dotenv syntax); none when it does not exist. */
export async function readDevVars(path = DEV_VARS) {
  return existsSync(path) ? parseEnv(await readFile(path, "utf8")) : {};
}

/** The signing key in `.dev.vars`, created (or replaced with `force`) when needed. */
export async function ensureDevVars({ force = false, path = DEV_VARS } = {}) {
  const text = existsSync(path) ? await readFile(path, "utf8") : "";
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const existing = lines.find((line) => line.startsWith(`${KEY_NAME}=`));
  const hasApiKeySecret = lines.some((line) => line.startsWith(`${API_KEY_SECRET_NAME}=`));
  const hasVaultKeys = lines.some((line) => line.startsWith(`${VAULT_KEYS_NAME}=`));
  if (existing && !force && hasApiKeySecret && hasVaultKeys) return { key: unquote(existing.slice(KEY_NAME.length + 1)), created: false };

  const key = existing && !force ? unquote(existing.slice(KEY_NAME.length + 1)) : await generateSigningKey();
  const kept = lines.filter((line) => !line.startsWith(`${KEY_NAME}=`) && !line.startsWith("# Local development only"));
  const body = [
    `# Local development only; never commit. Regenerate: node scripts/dev-vars.mjs --force`,
    ...kept,
    // Without it the gateway refuses to issue or accept API keys, as production does.
    ...(hasApiKeySecret ? [] : [`${API_KEY_SECRET_NAME}='${generateApiKeySecret()}'`]),
    // Without it the credential routes answer 503, as production does.
    ...(hasVaultKeys ? [] : [`${VAULT_KEYS_NAME}='${JSON.stringify([generateVaultKey()])}'`]),
    // Single quotes: dotenv takes the JSON inside literally.
    `${KEY_NAME}='${key}'`,
  ];
  await writeFile(path, `${body.join("\n")}\n`, { mode: 0o600 });
  return { key, created: !existing || force };
}

/** A platform JWT for a development tenant, verifiable by the local gateway. */
export async function mintDevToken(
  signingKey,
  {
    tenantId = "dev",
    subject = "dev-user",
    scopes = ["sessions:read", "sessions:write", "tenant:admin"],
    ttlSeconds = DEV_TOKEN_TTL_SECONDS,
    configPath = WRANGLER_JSON,
  } = {},
) {
  const vars = JSON.parse(await readFile(configPath, "utf8")).vars ?? {};
  const jwk = JSON.parse(signingKey);
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ [vars.AUTH_TENANT_CLAIM ?? "tenant_id"]: tenantId, scope: scopes.join(" ") })
    .setProtectedHeader({ alg: jwk.alg, kid: jwk.kid, typ: "JWT" })
    .setIssuer(vars.AUTH_ISSUER ?? "https://agents.local")
    .setAudience(vars.AUTH_AUDIENCE ?? "agent-platform")
    .setSubject(subject)
    .setIssuedAt(now)
    .setExpirationTime(now + ttlSeconds)
    .sign(await importJWK(jwk, jwk.alg));
}

function unquote(value) {
  const trimmed = value.trim();
  return /^(['"]).*\1$/s.test(trimmed) ? trimmed.slice(1, -1) : trimmed;
}

if (import.meta.url === new URL(process.argv[1] ?? "", "file:").href) {
  const { created } = await ensureDevVars({ force: process.argv.includes("--force") });
  console.log(created ? `wrote ${DEV_VARS} with a new ${KEY_NAME}` : `${DEV_VARS} already has ${KEY_NAME} (use --force to replace it)`);
}
