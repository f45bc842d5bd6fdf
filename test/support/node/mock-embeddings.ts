/**
 * The mock's embeddings (`POST /v1/embeddings`, OpenAI's shape): deterministic vectors that make
 * similar text similar, so hybrid search is tested for real. Each word is cut to its first five
 * letters, a crude stem, so `languages` and `language` meet where full-text search (which has no
 * stemmer) keeps them apart; each stem adds ±1 at a dimension its hash chooses.
 */
export const MOCK_EMBEDDING_DIMENSIONS = 256;
const STEM_CHARS = 5;

export function mockEmbedding(text: string): number[] {
  const vector = new Array<number>(MOCK_EMBEDDING_DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const hash = fnv1a(word.slice(0, STEM_CHARS));
    vector[hash % MOCK_EMBEDDING_DIMENSIONS]! += hash & 0x8000_0000 ? -1 : 1;
  }
  const length = Math.hypot(...vector);
  return length === 0 ? vector : vector.map((value) => value / length);
}

/** The answer to an embeddings request, or null when the body is not one. */
export function embeddingsAnswer(body: unknown): Record<string, unknown> | null {
  if (typeof body !== "object" || body === null) return null;
  const { model, input } = body as { model?: unknown; input?: unknown };
  const texts =
    typeof input === "string"
      ? [input]
      : Array.isArray(input) && input.every((text) => typeof text === "string")
        ? (input as string[])
        : null;
  if (typeof model !== "string" || texts === null || texts.length === 0) return null;
  const tokens = texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
  return {
    object: "list",
    model,
    data: texts.map((text, index) => ({ object: "embedding", index, embedding: mockEmbedding(text) })),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
