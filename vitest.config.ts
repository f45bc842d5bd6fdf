import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        plugins: [
          cloudflareTest(({ inject }) => ({
            wrangler: { configPath: "./wrangler.json" },
            miniflare: {
              bindings: {
                LLM_BASE_URL: inject("mockUrl"),
                ANTHROPIC_API_KEY: "test-key",
                ALLOW_PRIVATE_URLS: "true",
              },
            },
          })),
        ],
        test: {
          name: "workers",
          include: ["test/**/*.test.ts"],
          exclude: ["test/e2e/**", "test/support/**"],
          globalSetup: ["./test/support/node/global-setup.ts"],
        },
      },
    ],
  },
});
