/**
 * Vectors of memory items for hybrid search, from an OpenAI-compatible `/v1/embeddings` (the
 * operator's `EMBEDDINGS_MODEL`). The memory store asks for them itself, so every writer (the
 * routes, the memory tools) gets them without knowing. A failure never loses a write: the item is
 * kept without a vector and found by its words; a query without one is ranked by BM25 alone.
 */

import type { EmbeddingsConfig } from "../config";

export type { EmbeddingsConfig };

/** The text embedded of one item: enough for its gist, and within every embeddings model's input. */
export const MAX_EMBEDDED_CHARS = 16_000;
/** Larger vectors are refused: no model in use makes them, and each item stores one. */
export const MAX_DIMENSIONS = 4_096;
const TIMEOUT_MS = 10_000;

export class EmbeddingError extends Error {
  override name = "EmbeddingError";
}

export function embeddingsUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return /\/v1$/.test(base) ? `${base}/embeddings` : `${base}/v1/embeddings`;
}

/** One vector per text, in order; an `EmbeddingError` for any failure (network, status, shape). */
export async function embed(config: EmbeddingsConfig, texts: readonly string[], fetchImpl: typeof fetch = fetch): Promise<Float32Array[]> {
  let response: Response;
  try {
    response = await fetchImpl(embeddingsUrl(config.baseUrl), {
      method: "POST",
      headers: { "content-type": "application/json", ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) },
      body: JSON.stringify({
        model: config.model,
        input: texts.map((text) => text.slice(0, MAX_EMBEDDED_CHARS)),
        encoding_format: "float",
      }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    throw new EmbeddingError(`embeddings request failed: ${error instanceof Error ? error.name : "error"}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new EmbeddingError(`embeddings answered ${response.status}`);
  }
  const body = (await response.json().catch(() => null)) as { data?: { index?: unknown; embedding?: unknown }[] } | null;
  const vectors: Float32Array[] = [];
  for (const [i, entry] of (Array.isArray(body?.data) ? body.data : []).entries()) {
    const index = typeof entry?.index === "number" ? entry.index : i;
    const values = entry?.embedding;
    if (
      !Array.isArray(values) ||
      values.length === 0 ||
      values.length > MAX_DIMENSIONS ||
      !values.every((v) => typeof v === "number" && Number.isFinite(v))
    ) {
      throw new EmbeddingError("embeddings answered a malformed vector");
    }
    vectors[index] = normalize(Float32Array.from(values as number[]));
  }
  if (vectors.length !== texts.length || vectors.some((vector) => vector === undefined))
    throw new EmbeddingError("embeddings answered the wrong number of vectors");
  const dimensions = vectors[0]!.length;
  if (vectors.some((vector) => vector.length !== dimensions)) throw new EmbeddingError("embeddings answered vectors of different sizes");
  return vectors;
}

/** Scaled to length 1, so a dot product is the cosine similarity. */
export function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const length = Math.sqrt(sum);
  if (length === 0) return vector;
  return vector.map((value) => value / length);
}

/** The cosine similarity of two unit vectors of the same size (0 when the sizes differ). */
export function similarity(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

/** The vector as stored: its float32 bytes. */
export function toBlob(vector: Float32Array): ArrayBuffer {
  return vector.slice().buffer;
}

/** A stored vector, read in place (each blob SQLite answers is a buffer of its own). */
export function fromBlob(blob: ArrayBuffer): Float32Array {
  return new Float32Array(blob, 0, Math.floor(blob.byteLength / 4));
}
