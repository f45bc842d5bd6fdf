/**
 * The sources an assistant message cites (its text blocks' `citations`): each web page once, by
 * URL, in the order first cited; a document by its title. Pure. Only http(s) pages become links:
 * a citation is the provider's text and is never trusted as markup or script.
 */
import type { ContentBlock } from "./types";

export interface Source {
  title: string;
  /** An http(s) URL, or null for a document or a URL that is not one. */
  url: string | null;
}

export function citedSources(content: readonly ContentBlock[]): Source[] {
  const seen = new Set<string>();
  const sources: Source[] = [];
  for (const block of content) {
    if (block.type !== "text") continue;
    for (const citation of block.citations ?? []) {
      const fields = citation as Record<string, unknown>;
      const url = typeof fields.url === "string" && /^https?:\/\//i.test(fields.url) ? fields.url : null;
      const title = [fields.title, fields.document_title, fields.url].find((v): v is string => typeof v === "string" && v !== "");
      if (!title) continue;
      const key = url ?? `doc:${title}`;
      if (seen.has(key)) continue;
      seen.add(key);
      sources.push({ title, url });
    }
  }
  return sources;
}
