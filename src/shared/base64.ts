/**
 * Base64 (RFC 4648, standard alphabet, padded) to bytes and back, for images on the wire; and
 * the unpadded url-safe form of random ids.
 * Table-driven over typed arrays: `btoa`/`atob` need a binary string built one character at a
 * time, which takes about a second for a few megabytes, while this takes milliseconds.
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const ENCODE = new TextEncoder().encode(ALPHABET);
const PAD = 61; // "="
/** Char code → 6-bit value; 255 for a character outside the alphabet. */
const DECODE = new Uint8Array(256).fill(255);
ENCODE.forEach((code, value) => (DECODE[code] = value));

export function encodeBase64(bytes: Uint8Array): string {
  const out = new Uint8Array(base64Length(bytes.length));
  let o = 0;
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out[o++] = ENCODE[n >> 18]!;
    out[o++] = ENCODE[(n >> 12) & 63]!;
    out[o++] = ENCODE[(n >> 6) & 63]!;
    out[o++] = ENCODE[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest > 0) {
    const n = (bytes[i]! << 16) | (rest === 2 ? bytes[i + 1]! << 8 : 0);
    out[o++] = ENCODE[n >> 18]!;
    out[o++] = ENCODE[(n >> 12) & 63]!;
    out[o++] = rest === 2 ? ENCODE[(n >> 6) & 63]! : PAD;
    out[o++] = PAD;
  }
  return new TextDecoder().decode(out);
}

/** The url-safe alphabet (RFC 4648 §5) without padding: random bytes as an id's path-safe characters. */
export function base64url(bytes: Uint8Array): string {
  return encodeBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The decoded bytes, or null for text that is not canonical padded base64 (whitespace included). */
export function decodeBase64(text: string): Uint8Array | null {
  if (text.length % 4 !== 0) return null;
  const chars = new TextEncoder().encode(text);
  // A character outside ASCII takes several bytes: the lengths then differ.
  if (chars.length !== text.length) return null;
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const out = new Uint8Array((chars.length / 4) * 3 - padding);
  let o = 0;
  for (let i = 0; i < chars.length; i += 4) {
    const last = i + 4 === chars.length;
    const a = DECODE[chars[i]!]!;
    const b = DECODE[chars[i + 1]!]!;
    const c = last && padding === 2 ? 0 : DECODE[chars[i + 2]!]!;
    const d = last && padding >= 1 ? 0 : DECODE[chars[i + 3]!]!;
    if ((a | b | c | d) === 255) return null;
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = n >> 16;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return out;
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
