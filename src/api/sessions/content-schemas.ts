/** Schemas of what a session's history holds: content blocks, and the input of a user message. */
import { z } from "@hono/zod-openapi";
import { MAX_IMAGES_PER_INPUT } from "../../limits";
import { MAX_INPUT_CHARS } from "../../sessions/object/input";
import { IMAGE_MEDIA_TYPES } from "../../sessions/types";

/** Blocks per input; each block is a separate part of one user message. */
export const MAX_INPUT_BLOCKS = 100;
export const MAX_IMAGE_URL_CHARS = 2_048;

export const TextBlockSchema = z.object({ type: z.literal("text"), text: z.string() }).strict().openapi("TextBlock");

export const ToolUseBlockSchema = z
  .object({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown() })
  .openapi("ToolUseBlock");

export const ToolResultBlockSchema = z
  .object({ type: z.literal("tool_result"), tool_use_id: z.string(), content: z.string(), is_error: z.boolean().optional() })
  .openapi("ToolResultBlock");

const ImageMediaTypeSchema = z.enum(IMAGE_MEDIA_TYPES).openapi("ImageMediaType");

export const StoredImageBlockSchema = z
  .object({
    type: z.literal("image"),
    source: z.object({
      type: z.literal("stored"),
      image_id: z.string().openapi({ description: "The session keeps each image once, under this id.", example: "img_3f5c0e9a1b2d4c6e8f7a9b0c1d2e3f4a" }),
      media_type: ImageMediaTypeSchema,
      size_bytes: z.number().int(),
      width: z.number().int(),
      height: z.number().int(),
      url: z.string().optional().openapi({ description: "Where the platform fetched the image from, when it was given as a URL." }),
    }),
  })
  .openapi("StoredImageBlock", { description: "An image of a user message, as the history shows it: what it is, not its bytes." });

export const ContentBlockSchema = z
  .discriminatedUnion("type", [TextBlockSchema, ToolUseBlockSchema, ToolResultBlockSchema, StoredImageBlockSchema])
  .openapi("ContentBlock");

export const InputImageBlockSchema = z
  .object({
    type: z.literal("image"),
    source: z.discriminatedUnion("type", [
      z
        .object({
          type: z.literal("base64"),
          media_type: ImageMediaTypeSchema,
          data: z.string().min(1).openapi({ description: "The image file, base64 (standard alphabet, padded), without a `data:` prefix." }),
        })
        .strict(),
      z
        .object({
          type: z.literal("url"),
          url: z.string().max(MAX_IMAGE_URL_CHARS).openapi({ description: "An https URL on the public internet; the platform fetches it once.", example: "https://example.com/receipt.png" }),
        })
        .strict(),
    ]),
  })
  .strict()
  .openapi("InputImageBlock", {
    description:
      "An image: PNG, JPEG, GIF or WebP, at most the tenant's `max_image_bytes`. The platform checks it, stores it once with the session " +
      "and sends it to the model with every call whose history holds it; only models that take images accept it.",
  });

const InputBlockSchema = z.discriminatedUnion("type", [TextBlockSchema, InputImageBlockSchema]);

function inputProblem(input: string | z.infer<typeof InputBlockSchema>[]): string | null {
  const blocks = typeof input === "string" ? [{ type: "text" as const, text: input }] : input;
  const texts = blocks.flatMap((block) => (block.type === "text" ? [block.text] : []));
  const images = blocks.length - texts.length;
  if (images === 0 && texts.every((text) => text.trim() === "")) return "Must contain some text or an image.";
  if (images > MAX_IMAGES_PER_INPUT) return `Must hold at most ${MAX_IMAGES_PER_INPUT} images.`;
  const total = texts.reduce((sum, text) => sum + text.length, 0);
  return total > MAX_INPUT_CHARS ? `Must be at most ${MAX_INPUT_CHARS} characters in all.` : null;
}

export const RunInputSchema = z
  .union([z.string(), z.array(InputBlockSchema).min(1).max(MAX_INPUT_BLOCKS)])
  .superRefine((input, ctx) => {
    const problem = inputProblem(input);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .openapi("RunInput", {
    description:
      `A user message: text, or a list of text and image blocks; at most ${MAX_INPUT_CHARS} characters of text ` +
      `and ${MAX_IMAGES_PER_INPUT} images in all.`,
    example: "What time is it in Tokyo?",
  });

export type ApiRunInput = z.infer<typeof RunInputSchema>;
