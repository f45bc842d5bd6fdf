/**
 * Cuts a tool output to the tenant's `max_tool_output_chars`, saying that it did. `totalChars`:
 * the length of the output `text` was read from, when it was read only in part (redaction/).
 */
export function cutOutput(text: string, maxChars: number, totalChars: number = text.length): string {
  if (text.length <= maxChars && totalChars === text.length) return text;
  const note = `\n[output cut: ${totalChars} characters, limit ${maxChars}]`;
  // The note counts against the limit, so a saved output is never longer than the limit.
  if (note.length >= maxChars) return text.slice(0, maxChars);
  return text.slice(0, maxChars - note.length) + note;
}
