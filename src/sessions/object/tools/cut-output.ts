/** Cuts a tool output to the tenant's `max_tool_output_chars`, saying that it did. */
export function cutOutput(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const note = `\n[output cut: ${text.length} characters, limit ${maxChars}]`;
  // The note counts against the limit, so a saved output is never longer than the limit.
  if (note.length >= maxChars) return text.slice(0, maxChars);
  return text.slice(0, maxChars - note.length) + note;
}
