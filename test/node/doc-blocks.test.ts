/** Which blocks of a page the docs test runs: ```sh fences only, in order, less those marked not run. */
import { describe, expect, it } from "vitest";
import { NOT_RUN, runnableBlocks } from "../e2e/support/doc-blocks";

const page = [
  "# Page",
  "```sh\necho one\n```",
  "```json\n{}\n```",
  NOT_RUN,
  "```sh\nnpm start\n```",
  "## Section",
  "```sh\necho two\n```",
  "```ts\nconst x = 1;\n```",
  "### Deeper",
  "```sh\necho three\n```",
  "## Next",
  "```sh\necho four\n```",
].join("\n");

describe("runnableBlocks", () => {
  it("takes every sh fence in order, and leaves out other fences and those marked not run", () => {
    expect(runnableBlocks(page)).toEqual(["echo one\n", "echo two\n", "echo three\n", "echo four\n"]);
  });

  it("cuts a section at the next heading of its level, keeping deeper ones", () => {
    expect(runnableBlocks(page, "## Section")).toEqual(["echo two\n", "echo three\n"]);
    expect(() => runnableBlocks(page, "## Missing")).toThrow(/no heading/);
  });
});
