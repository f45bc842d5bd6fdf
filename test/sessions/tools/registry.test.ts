import { describe, expect, it } from "vitest";
import { BUILTIN_TOOLS, buildToolbox, checkToolSpecs } from "../../../src/sessions/object/tools/registry";

/** Names found on every plain object's prototype chain, and other inherited ones. */
const INHERITED_NAMES = [
  "constructor",
  "__proto__",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "isPrototypeOf",
  "__defineGetter__",
  "toLocaleString",
];

describe("built-in tool names", () => {
  it.each(INHERITED_NAMES)("refuses %s as a built-in tool", (name) => {
    expect(checkToolSpecs([{ type: "builtin", name }])).toContain(`no built-in tool is named "${name}"`);
  });

  it.each(INHERITED_NAMES)("builds no tool for a stored built-in named %s", (name) => {
    expect(buildToolbox([{ type: "builtin", name }]).size).toBe(0);
  });

  it("accepts the real built-ins and lists them when refusing", () => {
    expect(
      checkToolSpecs([
        { type: "builtin", name: "get_time" },
        { type: "builtin", name: "http_fetch" },
      ]),
    ).toBeNull();
    expect(checkToolSpecs([{ type: "builtin", name: "shell" }])).toContain("known: get_time, http_fetch, run_code");
    expect([...BUILTIN_TOOLS.keys()]).toEqual(["get_time", "http_fetch", "run_code"]);
  });

  it("lets a webhook or client tool take an inherited name: it is only a name", () => {
    const tools = buildToolbox([{ type: "client", name: "constructor", description: "d", input_schema: { type: "object" } }]);
    expect(tools.get("constructor")?.kind).toBe("client");
  });
});
