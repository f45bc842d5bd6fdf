/** The sources the console lists under an answer: each page once, only http(s) as links. */
import { describe, expect, it } from "vitest";
import { citedSources } from "../../../console/src/sources";
import type { ContentBlock } from "../../../console/src/types";

const text = (citations: Record<string, unknown>[]): ContentBlock => ({ type: "text", text: "…", citations }) as ContentBlock;

describe("citedSources", () => {
  it("lists each cited page once, in order, with its title; a document by its title", () => {
    const content = [
      { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} } as ContentBlock,
      text([
        { type: "web_search_result_location", url: "https://a.example/", title: "A" },
        { type: "web_search_result_location", url: "https://a.example/", title: "A" },
      ]),
      text([
        { type: "web_search_result_location", url: "https://b.example/", title: "B" },
        { type: "char_location", document_title: "Guide" },
      ]),
    ];
    expect(citedSources(content)).toEqual([
      { title: "A", url: "https://a.example/" },
      { title: "B", url: "https://b.example/" },
      { title: "Guide", url: null },
    ]);
  });

  it("never makes a link of a URL that is not http(s)", () => {
    expect(citedSources([text([{ type: "web_search_result_location", url: "javascript:alert(1)", title: "x" }])])).toEqual([
      { title: "x", url: null },
    ]);
  });
});
