/**
 * The `format` checks a schema may ask for, by name, in a Map: a format named by a tenant is
 * never looked up on a plain object (`__proto__`, `constructor`), and an unknown one is only an
 * annotation, as JSON Schema 2020-12 says.
 */
import { format as libraryFormats } from "@cfworker/json-schema";

type FormatCheck = (value: string) => boolean;

/**
 * The validator's own `url` check is a backtracking regex that takes exponential time on
 * "http://" followed by a few dozen letters and a "!"; the URL parser is linear.
 */
function isUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === "http:" || url.protocol === "https:" || url.protocol === "ftp:") && url.hostname !== "" && !/\s/.test(value);
}

/**
 * Every check but `url` is the validator's; each was timed on crafted strings of the largest
 * length checked (`MAX_PATTERN_SUBJECT_CHARS`) and stays within milliseconds there.
 */
export const FORMATS: ReadonlyMap<string, FormatCheck> = new Map<string, FormatCheck>([
  ...Object.entries(libraryFormats).filter(([name]) => name !== "url"),
  ["url", isUrl],
]);
