/** Base64 (RFC 4648, standard alphabet, padded) to bytes and back, for images on the wire. */

/** Characters per `btoa` call: a multiple of 3 bytes, so the pieces join without padding inside. */
const ENCODE_CHUNK_BYTES = 3 * 8 * 1024;
const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function encodeBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  for (let at = 0; at < bytes.length; at += ENCODE_CHUNK_BYTES) {
    // String.fromCharCode over a bounded slice: spreading a whole image would overflow the stack.
    parts.push(btoa(String.fromCharCode(...bytes.subarray(at, at + ENCODE_CHUNK_BYTES))));
  }
  return parts.join("");
}

/** The decoded bytes, or null for text that is not canonical padded base64 (whitespace included). */
export function decodeBase64(text: string): Uint8Array | null {
  if (!BASE64_PATTERN.test(text)) return null;
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The length of the base64 text of `bytes` bytes. */
export function base64Length(bytes: number): number {
  return Math.ceil(bytes / 3) * 4;
}

/** The decoded size of base64 text, from its length alone (for a check before decoding). */
export function decodedLength(text: string): number {
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  return Math.floor((text.length * 3) / 4) - padding;
}
