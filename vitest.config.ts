import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";
import { buildAssets } from "./scripts/build-assets.mjs";

// wrangler.json's `assets.directory` must exist before the Workers runtime starts; wrangler
// itself fills it through `build.command`, which the test runner does not run.
buildAssets();

/** Not Workers-runtime tests: the Node and end-to-end projects' files, and shared helpers. */
const NOT_WORKERS = ["test/e2e/**", "test/support/**", "test/node/**"];
/**
 * Workers-runtime files that need a runtime no other file has run in (the `workers-isolated`
 * project): they spy on what every object shares (storage, the alarm, a class prototype) or mock
 * the clock, so another file's leftover work would be counted or misled.
 */
const OWN_RUNTIME = [
  "test/**/index-load.test.ts",
  "test/**/authenticate.test.ts",
  "test/**/outbox.test.ts",
  "test/**/alarm-clock.test.ts",
  "test/**/alarm-sync.test.ts",
  "test/**/validator.test.ts",
  "test/sessions/controls.test.ts",
  "test/sessions/run-slots.test.ts",
  "test/sessions/billed-rows.test.ts",
];

/** The SDK from its source (sdk/package.json's exports), so no test needs an SDK build first. */
const SDK_SOURCE = { conditions: [...defaultServerConditions, "@agent-platform/source"] };

/** A project of tests in workerd (the Workers runtime) with the platform's test bindings. */
function workersProject(test: { name: string; isolate: boolean; include: string[]; exclude: string[] }) {
  return {
    plugins: [
      cloudflareTest(({ inject }) => ({
        wrangler: { configPath: "./wrangler.json" },
        miniflare: {
          bindings: {
            LLM_BASE_URL: inject("mockUrl"),
            ANTHROPIC_API_KEY: "test-key",
            OPENAI_BASE_URL: inject("mockUrl"),
            OPENAI_API_KEY: "test-openai-key",
            // Memory's hybrid search, against the mock's deterministic embeddings; the
            // end-to-end platform runs without it, so both rankings are tested.
            EMBEDDINGS_MODEL: "mock-embeddings",
            ALLOW_PRIVATE_URLS: "true",
            // The local runtime enforces no CPU limit on a child isolate (docs/tools.md).
            RUN_CODE_ISOLATE: "interpreter",
            // Short, so the timeout path is tested in seconds; production uses 110 s.
            MODEL_TIMEOUT_MS: "3000",
            // Status-webhook retries 1000 times sooner (30 s becomes 30 ms), so the schedule
            // is seen whole in seconds; production and wrangler.json keep the full one.
            NOTIFY_RETRY_SCALE: "0.001",
            // A retention day lasts 1.728 s (86400 s × 0.00002), so a 1-day retention is seen
            // whole in seconds; only tenants that set a retention are swept.
            SESSION_RETENTION_SCALE: "0.00002",
            AUTH_SIGNING_KEY: inject("signingKey"),
            AUTH_API_KEY_SECRET: inject("apiKeySecret"),
            VAULT_KEYS: inject("vaultKeys"),
            // One origin the CORS tests may call from; every other stays foreign.
            CORS_ORIGINS: JSON.stringify(["https://console.example.com"]),
            // Prices for the mock models named `priced-…`; every other mock model has none.
            MODEL_PRICES: JSON.stringify({ "priced-*": { input: 1000, output: 2000, cache_read: 100, cache_write: 1250 } }),
          },
        },
      })),
    ],
    test: {
      ...test,
      // Far above what a test takes alone; CI shares two cores among three projects.
      testTimeout: 20_000,
      globalSetup: ["./test/support/node/global-setup.ts"],
    },
  };
}

export default defineConfig({
  test: {
    projects: [
      workersProject({
        name: "workers",
        // One workerd for all these files rather than a new one, with the whole Worker loaded
        // again, per file: that start-up was most of this project's time. The files then share
        // that runtime's storage, module state and background work (alarms of objects that
        // earlier files left behind); they keep apart by their own tenant names, object names
        // and mock keys, as tests within a file always had to.
        isolate: false,
        include: ["test/**/*.test.ts"],
        exclude: [...NOT_WORKERS, ...OWN_RUNTIME],
      }),
      workersProject({
        name: "workers-isolated",
        // Files that spy on a prototype every object shares or mock the clock: another file's
        // leftover work in the same runtime would be counted or misled, so each of these files
        // gets a runtime of its own, as every file used to.
        isolate: true,
        include: OWN_RUNTIME,
        exclude: NOT_WORKERS,
      }),
      {
        resolve: SDK_SOURCE,
        ssr: { resolve: SDK_SOURCE },
        test: {
          name: "node",
          include: ["test/node/**/*.test.ts"],
          environment: "node",
        },
      },
      {
        // Real `wrangler dev` processes that are killed and restarted: one file at a time, since
        // each starts its own servers, and minutes rather than seconds per file.
        resolve: SDK_SOURCE,
        ssr: { resolve: SDK_SOURCE },
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          fileParallelism: false,
          testTimeout: 180_000,
          hookTimeout: 120_000,
          // Bundles the Worker once for every platform, and starts the platform the files that
          // need no restart share.
          globalSetup: ["./test/e2e/support/global-setup.ts"],
        },
      },
    ],
  },
});
