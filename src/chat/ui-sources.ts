/**
 * The sources an answer cites, as the AI SDK's UI stream shows them: a web page (a search
 * result's or a fetched page's location) as `source-url`, a cited document as `source-document`.
 * Pure. Each source once per turn, by its URL or document title, in the order first cited.
 */
import type { Citation, ContentBlock } from "../session-config/types";
import type { UiChunk } from "./ui-chunk";

/** A citation's source: a URL and its title, or a document's title. */
export type Source = { kind: "url"; url: string; title: string | null } | { kind: "document"; title: string };

/** Pure: the sources `content` cites, in order, each once. */
export function citedSources(content: readonly ContentBlock[]): Source[] {
  const seen = new Set<string>();
  const sources: Source[] = [];
  for (const block of content) {
    if (block.type !== "text") continue;
    for (const citation of block.citations ?? []) {
      const source = sourceOf(citation);
      const key = source && (source.kind === "url" ? `url:${source.url}` : `doc:${source.title}`);
      if (!source || seen.has(key!)) continue;
      seen.add(key!);
      sources.push(source);
    }
  }
  return sources;
}

function sourceOf(citation: Citation): Source | null {
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : null);
  const url = text(citation.url);
  if (url) return { kind: "url", url, title: text(citation.title) };
  const title = text(citation.document_title);
  return title ? { kind: "document", title } : null;
}

/** The chunks of the sources an answer cites that the turn has not shown yet; `shown` is updated. */
export function sourceChunks(content: readonly ContentBlock[], shown: Set<string>): UiChunk[] {
  return citedSources(content).flatMap((source): UiChunk[] => {
    const sourceId = source.kind === "url" ? source.url : `document:${source.title}`;
    if (shown.has(sourceId)) return [];
    shown.add(sourceId);
    return source.kind === "url"
      ? [{ type: "source-url", sourceId, url: source.url, ...(source.title ? { title: source.title } : {}) }]
      : [{ type: "source-document", sourceId, mediaType: "text/plain", title: source.title }];
  });
}
