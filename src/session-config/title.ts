/**
 * A session's title: its first input's text on one line, cut, so lists can say what a session is
 * about without reading its history. Pure.
 */
import type { ContentBlock } from "./types";

/** Long enough to tell sessions apart in a list row, short enough to keep the index rows small. */
export const MAX_TITLE_CHARS = 120;

/** The text of `content` with runs of white space made one space, cut to `MAX_TITLE_CHARS` (an ellipsis marks a cut); null when it has no text (images only). */
export function sessionTitle(content: readonly ContentBlock[]): string | null {
  const text = content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
  if (text === "") return null;
  const chars = Array.from(text);
  // Cut by code points, so a title never ends in half a surrogate pair.
  return chars.length <= MAX_TITLE_CHARS
    ? text
    : `${chars
        .slice(0, MAX_TITLE_CHARS - 1)
        .join("")
        .trimEnd()}…`;
}
