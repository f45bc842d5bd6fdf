/**
 * One licence everywhere a user reads it: the LICENSE file, the root and SDK package manifests
 * (npm shows the SDK's) and the lock file's record of both, the SDK's copy (sdk-package.test.ts
 * checks the tarball carries it), and the OpenAPI document's `info`.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const read = (path: string) => readFile(join(root, path), "utf8");
const SPDX = "Apache-2.0";

describe("the licence", () => {
  it("is Apache-2.0 in LICENSE, both package.json files, the SDK's copy and the OpenAPI document", async () => {
    const license = await read("LICENSE");
    expect(license).toContain("Apache License\n                           Version 2.0, January 2004");
    expect(await read("sdk/LICENSE")).toBe(license);
    expect(JSON.parse(await read("package.json")).license).toBe(SPDX);
    const sdk = JSON.parse(await read("sdk/package.json"));
    expect(sdk.license).toBe(SPDX);
    expect(sdk.files).toContain("LICENSE");
    expect(JSON.parse(await read("openapi/openapi.json")).info.license).toEqual({ name: SPDX, identifier: SPDX });
    // The lock file records it too, or the first `npm install` rewrites the lock.
    const lock = JSON.parse(await read("package-lock.json")) as { packages: Record<string, { license?: string }> };
    expect([lock.packages[""]?.license, lock.packages["sdk"]?.license]).toEqual([SPDX, SPDX]);
  });
});
