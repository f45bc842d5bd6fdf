/**
 * The images of a model call, read from the session's store for that call only: the history
 * holds references, a request carries the bytes (as base64, which both providers take).
 */
import { encodeBase64 } from "../../../shared/base64";
import type { CallMessage } from "../context/assemble";
import type { ModelBlock, ModelMessage } from "../model/provider";
import type { ContentBlock } from "../../../session-config/types";

/** Said in place of an image whose bytes are gone; never expected while the session exists. */
export const MISSING_IMAGE_TEXT = "[an image was here; it is no longer stored]";

export function withImageData(messages: readonly CallMessage[], load: (imageId: string) => Uint8Array | null): ModelMessage[] {
  const encoded = new Map<string, string | null>();
  const data = (id: string): string | null => {
    if (!encoded.has(id)) {
      const bytes = load(id);
      encoded.set(id, bytes === null ? null : encodeBase64(bytes));
    }
    return encoded.get(id) ?? null;
  };
  return messages.map((message) => ({ ...message, content: message.content.map((block) => toModelBlock(block, data)) }));
}

function toModelBlock(block: ContentBlock, data: (id: string) => string | null): ModelBlock {
  if (block.type !== "image") return block;
  const bytes = data(block.source.image_id);
  if (bytes === null) return { type: "text", text: MISSING_IMAGE_TEXT };
  return { type: "image", source: { type: "base64", media_type: block.source.media_type, data: bytes } };
}
