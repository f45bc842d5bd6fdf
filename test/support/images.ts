/** Images for tests: a real 1×1 PNG, padded after its end to any size (readers stop at IEND). */
import { encodeBase64 } from "../../src/shared/base64";

export const TINY_PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

export function pngBytes(padBytes = 0): Uint8Array {
  const png = Uint8Array.from(atob(TINY_PNG_BASE64), (c) => c.charCodeAt(0));
  const bytes = new Uint8Array(png.length + padBytes);
  bytes.set(png);
  return bytes;
}

export function pngBase64(padBytes = 0): string {
  return encodeBase64(pngBytes(padBytes));
}

/** An input image block of the API, base64 PNG. */
export function pngBlock(padBytes = 0, mediaType = "image/png") {
  return { type: "image", source: { type: "base64", media_type: mediaType, data: pngBase64(padBytes) } };
}
