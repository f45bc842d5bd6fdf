/** Schemas of the public system routes. */
import { z } from "@hono/zod-openapi";

export const HealthSchema = z.object({ status: z.literal("ok") }).openapi("Health");

export const JwkSchema = z
  .object({
    kty: z.string().openapi({ example: "EC" }),
    crv: z.string().openapi({ example: "P-256" }),
    x: z.string(),
    y: z.string().optional(),
    kid: z.string(),
    alg: z.string().openapi({ example: "ES256" }),
    use: z.literal("sig"),
  })
  .openapi("Jwk", { description: "A public key; private members are never published." });

export const JwksSchema = z.object({ keys: z.array(JwkSchema) }).openapi("Jwks");

export const OpenApiDocumentSchema = z
  .record(z.string(), z.unknown())
  .openapi("OpenApiDocument", { description: "An OpenAPI 3.1 document." });
