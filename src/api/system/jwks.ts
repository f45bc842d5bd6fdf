/** `GET /.well-known/jwks.json`: the public key the platform signs its access tokens with. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { publicJwks } from "../../auth/platform-keys";
import type { AppEnv } from "../context";
import { PUBLIC_ERRORS, errorResponses } from "../errors";
import { platformKeys } from "../platform";
import { jsonContent } from "../schemas";
import { NO_AUTH } from "../security";
import { JwksSchema } from "./schemas";

/** Verifiers may cache the set; a key rotation must allow for this much staleness. */
const CACHE_CONTROL = "public, max-age=300";

export const route = createRoute({
  method: "get",
  path: "/.well-known/jwks.json",
  operationId: "getJwks",
  summary: "Public keys of the platform issuer",
  tags: ["System"],
  security: NO_AUTH,
  responses: {
    200: jsonContent(JwksSchema, "The key set; empty when no signing key is configured."),
    ...errorResponses(...PUBLIC_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const keys = await platformKeys(c.var.config);
  c.header("Cache-Control", CACHE_CONTROL);
  if (!keys.ok) return c.json({ keys: [] }, 200);
  return c.json(JwksSchema.parse(publicJwks(keys.keys)), 200);
};
