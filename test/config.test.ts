import { describe, expect, it } from "vitest";
import {
  ConfigError,
  DEFAULT_AUTH_FAILURES_PER_MINUTE,
  DEFAULT_MAX_TOKEN_AGE_SECONDS,
  parseClientAddressHeader,
  parseConfig,
} from "../src/config";
import type { Env } from "../src/env";

const base = {} as Env;

describe("parseConfig: authentication limits", () => {
  it("defaults to a day of token lifetime, 60 failures a minute and no external platform admins", () => {
    const { auth } = parseConfig(base);
    expect(auth.maxTokenAgeSeconds).toBe(DEFAULT_MAX_TOKEN_AGE_SECONDS);
    expect(DEFAULT_MAX_TOKEN_AGE_SECONDS).toBe(86_400);
    expect(auth.failuresPerMinute).toBe(DEFAULT_AUTH_FAILURES_PER_MINUTE);
    expect(DEFAULT_AUTH_FAILURES_PER_MINUTE).toBe(60);
    expect(auth.externalPlatformAdmin).toBe(false);
  });

  it("looks legacy API keys up unless AUTH_LEGACY_API_KEYS is false, and refuses any other value", () => {
    expect(parseConfig(base).auth.legacyApiKeys).toBe(true);
    expect(parseConfig({ ...base, AUTH_LEGACY_API_KEYS: "true" }).auth.legacyApiKeys).toBe(true);
    expect(parseConfig({ ...base, AUTH_LEGACY_API_KEYS: "false" }).auth.legacyApiKeys).toBe(false);
    expect(() => parseConfig({ ...base, AUTH_LEGACY_API_KEYS: "no" })).toThrow(/AUTH_LEGACY_API_KEYS/);
  });

  it("reads the variables", () => {
    const { auth } = parseConfig({
      ...base,
      AUTH_MAX_TOKEN_AGE_SECONDS: "3600",
      AUTH_FAILURES_PER_MINUTE: "5",
      AUTH_EXTERNAL_PLATFORM_ADMIN: "true",
    });
    expect(auth).toMatchObject({ maxTokenAgeSeconds: 3600, failuresPerMinute: 5, externalPlatformAdmin: true });
  });

  it.each([
    ["AUTH_MAX_TOKEN_AGE_SECONDS", "60"],
    ["AUTH_MAX_TOKEN_AGE_SECONDS", "forever"],
    ["AUTH_MAX_TOKEN_AGE_SECONDS", "3600.5"],
    ["AUTH_MAX_TOKEN_AGE_SECONDS", String(365 * 24 * 60 * 60)],
    ["AUTH_FAILURES_PER_MINUTE", "0"],
    ["AUTH_FAILURES_PER_MINUTE", "-1"],
    ["AUTH_FAILURES_PER_MINUTE", "1e3"],
    ["AUTH_EXTERNAL_PLATFORM_ADMIN", "yes"],
  ])("refuses %s=%s at start-up", (name, value) => {
    expect(() => parseConfig({ ...base, [name]: value })).toThrow(ConfigError);
    expect(() => parseConfig({ ...base, [name]: value })).toThrow(name);
  });
});

describe("parseConfig: TRUSTED_CLIENT_IP_HEADER", () => {
  const deployed = () => false;
  const local = () => true;

  it.each([
    ["unset, deployed: Cloudflare's header", undefined, deployed, "CF-Connecting-IP"],
    ["unset, under a local runtime: none", undefined, local, null],
    ["empty, under a local runtime: none", " ", local, null],
    ["none, deployed", "none", deployed, null],
    ["NONE, deployed", "NONE", deployed, null],
    ["a header of a proxy of the deployment's own, deployed", "X-Real-IP", deployed, "X-Real-IP"],
    ["set on purpose, under a local runtime too", "CF-Connecting-IP", local, "CF-Connecting-IP"],
  ])("%s", (_name, value, isLocal, expected) => {
    expect(parseClientAddressHeader(value, isLocal)).toBe(expected);
  });

  it("refuses what is not a header name", () => {
    for (const value of ["X Real IP", "X-Real-IP:", "é", "x".repeat(65)])
      expect(() => parseConfig({ TRUSTED_CLIENT_IP_HEADER: value } as Env)).toThrow(/TRUSTED_CLIENT_IP_HEADER/);
  });

  it("is none in this runtime, a local one, unless set", () => {
    expect(parseConfig({} as Env).clientAddressHeader).toBeNull();
    expect(parseConfig({ TRUSTED_CLIENT_IP_HEADER: "X-Real-IP" } as Env).clientAddressHeader).toBe("X-Real-IP");
  });
});

describe("parseConfig: CORS_ORIGINS", () => {
  it("is empty by default and reads a JSON list of origins", () => {
    expect(parseConfig(base).corsOrigins).toEqual([]);
    expect(parseConfig({ ...base, CORS_ORIGINS: "[]" }).corsOrigins).toEqual([]);
    expect(parseConfig({ ...base, CORS_ORIGINS: '["https://console.example.com", "http://localhost:5173"]' }).corsOrigins).toEqual([
      "https://console.example.com",
      "http://localhost:5173",
    ]);
  });

  it.each([
    ["not JSON", "https://console.example.com"],
    ["not a list", '"https://console.example.com"'],
    ["a wildcard", '["*"]'],
    ["a path", '["https://console.example.com/app"]'],
    ["a trailing slash", '["https://console.example.com/"]'],
    ["another scheme", '["ftp://console.example.com"]'],
    ["a non-string", "[42]"],
  ])("refuses %s at start-up", (_what, value) => {
    expect(() => parseConfig({ ...base, CORS_ORIGINS: value })).toThrow(/CORS_ORIGINS/);
  });
});

describe("parseConfig: embeddings", () => {
  it("is off without EMBEDDINGS_MODEL, and takes the OpenAI base URL and key with it", () => {
    expect(parseConfig(base).embeddings).toBeNull();
    expect(parseConfig({ ...base, EMBEDDINGS_MODEL: "e", OPENAI_BASE_URL: "http://h/v1/", OPENAI_API_KEY: "sk" }).embeddings).toEqual({
      model: "e",
      baseUrl: "http://h/v1",
      apiKey: "sk",
      minSimilarity: 0.3,
    });
  });

  it("never sends the OpenAI key to another embeddings host", () => {
    const config = parseConfig({
      ...base,
      EMBEDDINGS_MODEL: "e",
      EMBEDDINGS_BASE_URL: "https://embed.example",
      OPENAI_API_KEY: "sk-openai",
    }).embeddings;
    expect(config).toMatchObject({ baseUrl: "https://embed.example", apiKey: undefined });
    expect(
      parseConfig({ ...base, EMBEDDINGS_MODEL: "e", EMBEDDINGS_BASE_URL: "https://embed.example", EMBEDDINGS_API_KEY: "k" }).embeddings
        ?.apiKey,
    ).toBe("k");
  });

  it("takes a minimum similarity from 0 to 1, and refuses anything else", () => {
    expect(parseConfig({ ...base, EMBEDDINGS_MODEL: "e", EMBEDDINGS_MIN_SIMILARITY: "0.55" }).embeddings?.minSimilarity).toBe(0.55);
    for (const bad of ["1.5", "-0.1", "x", "0.5.5"])
      expect(() => parseConfig({ ...base, EMBEDDINGS_MODEL: "e", EMBEDDINGS_MIN_SIMILARITY: bad }), bad).toThrow(ConfigError);
  });
});

describe("parseConfig: RUN_CODE_ISOLATE", () => {
  const loader = {} as WorkerLoader;

  it("runs code in the interpreter by default, and in a Dynamic Worker when asked and bound", () => {
    expect(parseConfig(base).runCodeIsolate).toBe("interpreter");
    expect(parseConfig({ ...base, RUN_CODE_ISOLATE: "interpreter" }).runCodeIsolate).toBe("interpreter");
    expect(parseConfig({ ...base, RUN_CODE_ISOLATE: "dynamic_worker", LOADER: loader }).runCodeIsolate).toBe("dynamic_worker");
  });

  it("refuses a Dynamic Worker without the LOADER binding, and any other value", () => {
    expect(() => parseConfig({ ...base, RUN_CODE_ISOLATE: "dynamic_worker" })).toThrow(/LOADER binding/);
    expect(() => parseConfig({ ...base, RUN_CODE_ISOLATE: "child", LOADER: loader })).toThrow(ConfigError);
  });
});
