/**
 * What the gateway builds once per isolate from its configuration: the platform's signing
 * keys, its API-key secret and the dependencies of `authenticate`. Each is cached by the parsed
 * `Config`, which `loadConfig` itself caches per bindings object.
 */
import { createRemoteJWKSet } from "jose";
import { tenantIndexStub, tenantRegistryStub } from "../objects";
import { loadApiKeySecret, type ApiKeySecretResult } from "../auth/api-key-secret";
import type { AuthenticateDeps } from "../auth/authenticate";
import { loadPlatformKeys, type PlatformKeysResult } from "../auth/platform-keys";
import type { Config } from "../config";
import type { Env } from "../env";
import { log } from "../log";

const keysByConfig = new WeakMap<Config, Promise<PlatformKeysResult>>();
const depsByConfig = new WeakMap<Config, Promise<AuthenticateDeps>>();
const apiKeySecretByConfig = new WeakMap<Config, Promise<ApiKeySecretResult>>();

/** The platform keys, or why they are unavailable (logged once per isolate). */
export function platformKeys(config: Config): Promise<PlatformKeysResult> {
  let keys = keysByConfig.get(config);
  if (!keys) {
    keys = loadPlatformKeys(config.auth.signingKey).then((result) => {
      if (!result.ok) log("error", "platform_keys_unavailable", { reason: result.error });
      return result;
    });
    keysByConfig.set(config, keys);
  }
  return keys;
}

/**
 * The API-key secret, or why it is unavailable (logged once per isolate at error level). Without
 * it the platform fails closed: no key is issued and no tagged key is accepted.
 */
export function apiKeySecret(config: Config): Promise<ApiKeySecretResult> {
  let secret = apiKeySecretByConfig.get(config);
  if (!secret) {
    secret = loadApiKeySecret(config.auth.apiKeySecret).then((result) => {
      if (!result.ok) log("error", "api_key_secret_unavailable", { reason: result.error });
      return result;
    });
    apiKeySecretByConfig.set(config, secret);
  }
  return secret;
}

export function authDeps(env: Env, config: Config): Promise<AuthenticateDeps> {
  let deps = depsByConfig.get(config);
  if (!deps) {
    deps = buildAuthDeps(env, config);
    depsByConfig.set(config, deps);
  }
  return deps;
}

async function buildAuthDeps(env: Env, config: Config): Promise<AuthenticateDeps> {
  const [keys, secret] = await Promise.all([platformKeys(config), apiKeySecret(config)]);
  const deps: AuthenticateDeps = {
    config: config.auth,
    platformKey: keys.ok ? keys.keys : null,
    apiKeySecret: secret.ok ? secret.key : null,
    findApiKey: (tenantId, keyId) => tenantIndexStub(env, tenantId).findApiKey(tenantId, keyId),
    legacyKeyTenant: config.auth.legacyApiKeys ? (tenantId) => tenantRegistryStub(env).knows(tenantId) : null,
  };
  // The remote key set caches keys and refetches on an unknown kid, so one per isolate.
  if (config.auth.jwksUrl) deps.externalJwks = createRemoteJWKSet(new URL(config.auth.jwksUrl));
  return deps;
}
