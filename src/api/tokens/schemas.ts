/** Schemas of the token exchange. */
import { z } from "@hono/zod-openapi";

export const AccessTokenSchema = z
  .object({
    access_token: z.string().openapi({ description: "A platform JWT with the key's tenant, subject and scopes." }),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int().openapi({ description: "Seconds until it expires.", example: 900 }),
  })
  .openapi("AccessToken");

export const StreamTokenSchema = z
  .object({
    access_token: z
      .string()
      .openapi({ description: "A platform JWT for `?access_token=` on the events route, refused on every other route." }),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int().openapi({ description: "Seconds until it expires.", example: 900 }),
  })
  .openapi("StreamToken");
