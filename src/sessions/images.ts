/**
 * The images of a run's input, made into uploads the session stores: base64 decoded, URLs
 * fetched once through the URL guard, each checked for its size (`max_image_bytes`), its type
 * (by its bytes) and the model's capability before the session is asked anything. Every problem
 * is a 400 naming the field; nothing is stored for a refused request.
 */
import { decodeBase64, decodedLength } from "../shared/base64";
import { inspectImage } from "./object/images/inspect";
import { acceptsImages, type ModelCatalog } from "../models/catalog";
import { safeFetchBytes } from "../egress/safe-fetch";
import { checkUrl, describeRefusal } from "../egress/url-guard";
import type { ImageUpload, RunInput, TextBlock } from "../session-config/types";
import { MAX_INPUT_IMAGE_BYTES } from "../limits";
import { ApiError, type FieldError } from "../problems";
import type { ApiRunInput } from "../session-config/request-schemas";

/** A slow image server gets a clear 400 well before the caller's own timeout. */
export const IMAGE_FETCH_TIMEOUT_MS = 10_000;
export const IMAGE_FETCH_MAX_REDIRECTS = 3;

export interface ImageRules {
  /** The session's `max_image_bytes` (the tenant's, or lower). */
  maxImageBytes: number;
  model: string;
  catalog: ModelCatalog;
  allowPrivateUrls: boolean;
  fetchImpl?: typeof fetch;
}

/** The input as the session takes it; throws the 400 for anything wrong with its images. */
export async function resolveRunInput(input: ApiRunInput, rules: ImageRules): Promise<RunInput> {
  if (typeof input === "string" || !input.some((block) => block.type === "image")) return input as RunInput;
  if (!acceptsImages(rules.catalog, rules.model)) {
    const at = input.findIndex((block) => block.type === "image");
    throw refused([{ path: `body.input.${at}`, message: `The model "${rules.model}" does not accept images.` }]);
  }
  const errors: FieldError[] = [];
  const blocks: (TextBlock | ImageUpload)[] = [];
  let total = 0;
  // One at a time: the images of a message are held in memory together only once checked.
  for (const [i, block] of input.entries()) {
    if (block.type === "text") {
      blocks.push(block);
      continue;
    }
    const loaded =
      block.source.type === "base64"
        ? decoded(block.source.data, rules, `body.input.${i}.source.data`)
        : await fetched(block.source.url, rules, `body.input.${i}.source.url`);
    if (!loaded.ok) {
      errors.push(loaded.error);
      continue;
    }
    const inspected = inspectImage(loaded.bytes);
    const path = `body.input.${i}.source`;
    if (!inspected.ok) {
      errors.push({ path, message: `The image ${inspected.problem}.` });
      continue;
    }
    const declared = block.source.type === "base64" ? block.source.media_type : inspected.image.media_type;
    if (declared !== inspected.image.media_type) {
      errors.push({ path: `${path}.media_type`, message: `The image is ${inspected.image.media_type}, not ${declared}.` });
      continue;
    }
    total += loaded.bytes.byteLength;
    if (total > MAX_INPUT_IMAGE_BYTES) {
      errors.push({ path: "body.input", message: `The images of one message may be at most ${MAX_INPUT_IMAGE_BYTES} bytes together.` });
      break;
    }
    blocks.push({
      type: "image",
      media_type: inspected.image.media_type,
      data: loaded.bytes,
      url: block.source.type === "url" ? loaded.url : null,
    });
  }
  if (errors.length > 0) throw refused(errors);
  return blocks;
}

type Loaded = { ok: true; bytes: Uint8Array; url: string } | { ok: false; error: FieldError };

function decoded(data: string, rules: ImageRules, path: string): Loaded {
  // Measured before decoding: an oversized image is refused without being held twice.
  if (decodedLength(data) > rules.maxImageBytes) return { ok: false, error: tooLarge(path, rules.maxImageBytes) };
  const bytes = decodeBase64(data);
  if (bytes === null)
    return { ok: false, error: { path, message: "Not base64 (the standard alphabet, padded, without a data: prefix or whitespace)." } };
  if (bytes.byteLength > rules.maxImageBytes) return { ok: false, error: tooLarge(path, rules.maxImageBytes) };
  return { ok: true, bytes, url: "" };
}

async function fetched(raw: string, rules: ImageRules, path: string): Promise<Loaded> {
  const schemes = rules.allowPrivateUrls ? ["http", "https"] : ["https"];
  const check = checkUrl(raw, { allowPrivate: rules.allowPrivateUrls, allowedSchemes: schemes });
  if (!check.ok) {
    const message =
      check.reason === "scheme_not_allowed"
        ? "Image URLs must use https."
        : `Not an allowed image URL: ${describeRefusal(check.reason, raw)}.`;
    return { ok: false, error: { path, message } };
  }
  const result = await safeFetchBytes(
    check.url.href,
    { method: "GET", headers: { accept: "image/png, image/jpeg, image/gif, image/webp" } },
    {
      allowPrivate: rules.allowPrivateUrls,
      allowedSchemes: schemes,
      timeoutMs: IMAGE_FETCH_TIMEOUT_MS,
      maxBytes: rules.maxImageBytes,
      maxRedirects: IMAGE_FETCH_MAX_REDIRECTS,
      textOnly: false,
      fetchImpl: rules.fetchImpl,
    },
  );
  if (!result.ok) return { ok: false, error: { path, message: `The image could not be fetched: ${result.detail}.` } };
  if (result.status < 200 || result.status > 299)
    return { ok: false, error: { path, message: `The image URL answered ${result.status}.` } };
  if (result.truncated) return { ok: false, error: tooLarge(path, rules.maxImageBytes) };
  return { ok: true, bytes: result.bytes, url: check.url.href };
}

function tooLarge(path: string, max: number): FieldError {
  return { path, message: `The image is larger than max_image_bytes (${max} bytes).` };
}

function refused(errors: FieldError[]): ApiError {
  return new ApiError("validation_failed", undefined, { errors });
}
