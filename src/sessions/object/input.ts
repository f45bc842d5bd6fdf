/**
 * A run's input as the session object takes it: checked again (the gateway checked it first, but a
 * Durable Object validates what it receives), its images inspected and named by their content,
 * then stored (each image once) as the content blocks of one user message.
 */
import { MAX_IMAGES_PER_INPUT, MAX_INPUT_IMAGE_BYTES } from "../../limits";
import { imageId, inspectImage } from "./images/inspect";
import type { SessionStore, StoredImage } from "./store/store";
import type { ContentBlock, ImageUpload, RunInput, TextBlock } from "../../session-config/types";
import { MAX_INPUT_CHARS } from "../../session-config/bounds";
import type { RedactionSettings } from "../../shared/redaction/settings";
import { redactInputText } from "./redaction";

export { MAX_INPUT_CHARS };

/** An input ready to store: its images checked, measured and named. */
export type PreparedInput = (TextBlock | { type: "image"; image: StoredImage; data: Uint8Array; url: string | null })[];

export interface InputRules {
  maxImageBytes: number;
  /** Whether the session's model takes images. */
  imagesAccepted: boolean;
}

/** The input checked and its images measured; a readable problem when it cannot be taken. */
export async function prepareInput(
  input: RunInput,
  rules: InputRules,
): Promise<{ ok: true; input: PreparedInput } | { ok: false; problem: string }> {
  const problem = checkInput(input, rules);
  if (problem) return { ok: false, problem };
  if (typeof input === "string") return { ok: true, input: [{ type: "text", text: input }] };
  const prepared: PreparedInput = [];
  for (const [i, block] of input.entries()) {
    if (block.type === "text") {
      prepared.push({ type: "text", text: block.text });
      continue;
    }
    const inspected = inspectImage(block.data);
    if (!inspected.ok) return { ok: false, problem: `input[${i}] ${inspected.problem}` };
    if (inspected.image.media_type !== block.media_type)
      return { ok: false, problem: `input[${i}] is ${inspected.image.media_type}, not ${block.media_type}` };
    const image: StoredImage = { id: await imageId(block.data), size_bytes: block.data.byteLength, ...inspected.image };
    prepared.push({ type: "image", image, data: block.data, url: block.url });
  }
  return { ok: true, input: prepared };
}

/**
 * The input with its text redacted as the run's setting asks. Called before the transaction that
 * stores it: redaction takes up to a fraction of a second on a long text, which a transaction
 * would hold the object's storage through.
 */
export function redactInput(input: PreparedInput, redaction: RedactionSettings | null | undefined): PreparedInput {
  return input.map((block) => (block.type === "text" ? redactInputText(block, redaction) : block));
}

/** Stores the input's images (each once per session) and returns the message's content blocks; the text was redacted by `redactInput`. */
export function storeInput(store: SessionStore, input: PreparedInput, now: string): ContentBlock[] {
  return input.map((block): ContentBlock => {
    if (block.type === "text") return block;
    store.putImage(block.image, block.data, now);
    const { id, ...facts } = block.image;
    return { type: "image", source: { type: "stored", image_id: id, ...facts, ...(block.url ? { url: block.url } : {}) } };
  });
}

function checkInput(input: RunInput, rules: InputRules): string | null {
  if (typeof input === "string") {
    if (!input.trim()) return "input must not be empty";
    return input.length > MAX_INPUT_CHARS ? `input is longer than ${MAX_INPUT_CHARS} characters` : null;
  }
  if (!Array.isArray(input) || input.length === 0) return "input must be a string or a non-empty list of text and image blocks";
  let chars = 0;
  let images = 0;
  let imageBytes = 0;
  let text = false;
  for (const block of input) {
    if (block?.type === "text" && typeof block.text === "string") {
      chars += block.text.length;
      text ||= block.text.trim() !== "";
    } else if (isUpload(block)) {
      images++;
      imageBytes += block.data.byteLength;
      if (block.data.byteLength > rules.maxImageBytes) return `an image is larger than max_image_bytes (${rules.maxImageBytes} bytes)`;
    } else {
      return "input blocks must be text or image blocks";
    }
  }
  if (!text && images === 0) return "input must not be empty";
  if (chars > MAX_INPUT_CHARS) return `input is longer than ${MAX_INPUT_CHARS} characters`;
  if (images > 0 && !rules.imagesAccepted) return "the session's model does not accept images";
  if (images > MAX_IMAGES_PER_INPUT) return `at most ${MAX_IMAGES_PER_INPUT} images per message`;
  if (imageBytes > MAX_INPUT_IMAGE_BYTES) return `the images of one message are larger than ${MAX_INPUT_IMAGE_BYTES} bytes together`;
  return null;
}

function isUpload(block: unknown): block is ImageUpload {
  const upload = block as Partial<ImageUpload> | null;
  return (
    upload?.type === "image" &&
    upload.data instanceof Uint8Array &&
    typeof upload.media_type === "string" &&
    (upload.url === null || typeof upload.url === "string")
  );
}
