/** Metadata as a person types it into the console: `key=value` lines. Pure. */

/** `key=value` lines as metadata; the first line that is not one, as a problem. */
export function parseMetadataLines(text: string): { ok: true; metadata: Record<string, string> | null } | { ok: false; line: string } {
  const metadata: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "") continue;
    const at = line.indexOf("=");
    if (at <= 0) return { ok: false, line };
    metadata[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return { ok: true, metadata: Object.keys(metadata).length > 0 ? metadata : null };
}
