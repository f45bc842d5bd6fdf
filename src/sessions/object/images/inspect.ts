/**
 * What an image is, read from its bytes rather than from what the caller or a server says:
 * its type by its signature and its size in pixels from its header (`image-size`, which reads
 * headers only and runs anywhere). Only the types every provider takes are accepted. Pure,
 * except the content hash that names a stored image.
 */
import { imageSize } from "image-size";
import { toHex } from "../../../shared/hex";
import { IMAGE_MEDIA_TYPES, type ImageMediaType } from "../../../session-config/types";

/** `image-size`'s type names for the accepted media types. */
const MEDIA_TYPES: ReadonlyMap<string, ImageMediaType> = new Map([
  ["png", "image/png"],
  ["jpg", "image/jpeg"],
  ["gif", "image/gif"],
  ["webp", "image/webp"],
]);

/** Far beyond any camera; a header claiming more is broken or hostile. */
export const MAX_IMAGE_SIDE_PIXELS = 100_000;

export interface ImageFacts {
  media_type: ImageMediaType;
  width: number;
  height: number;
}

export type ImageInspection = { ok: true; image: ImageFacts } | { ok: false; problem: string };

export const ACCEPTED_IMAGE_TYPES = IMAGE_MEDIA_TYPES.join(", ");

export function inspectImage(bytes: Uint8Array): ImageInspection {
  let size: { type?: string; width?: number; height?: number };
  try {
    size = imageSize(bytes);
  } catch {
    return { ok: false, problem: `is not an image of an accepted type (${ACCEPTED_IMAGE_TYPES})` };
  }
  const mediaType = size.type === undefined ? undefined : MEDIA_TYPES.get(size.type);
  if (!mediaType) return { ok: false, problem: `is a ${size.type ?? "unknown"} image; accepted types: ${ACCEPTED_IMAGE_TYPES}` };
  const { width, height } = size;
  if (!isSide(width) || !isSide(height)) return { ok: false, problem: "has a header without a usable width and height" };
  return { ok: true, image: { media_type: mediaType, width, height } };
}

function isSide(value: number | undefined): value is number {
  return Number.isInteger(value) && value! >= 1 && value! <= MAX_IMAGE_SIDE_PIXELS;
}

/** The id a stored image is kept under: its content hash, so the same image is stored once per session. */
export async function imageId(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return `img_${toHex(new Uint8Array(digest)).slice(0, 32)}`;
}
