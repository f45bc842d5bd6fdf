/**
 * `POST /v1/admin/vault/reseal`: the vault's re-encryption pass run to its end for a page of
 * tenants, so an operator sees when no row is left under an old key before dropping it.
 */
import { createRoute, type RouteHandler, z } from "@hono/zod-openapi";
import { tenantRegistryStub, vaultStub } from "../../objects";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { platformAdminAuth } from "../security";
import { TenantListQuerySchema } from "./schemas";

const ResealPageSchema = z
  .object({
    tenants: z.number().int().openapi({ description: "Tenants of this page whose vault was asked." }),
    resealed: z.number().int().openapi({ description: "Credentials sealed again under the first key." }),
    remaining: z.number().int().openapi({ description: "Credentials of this page still under another key (unreadable ones included)." }),
    unreadable: z.number().int().openapi({ description: "Credentials no listed key opens: their key was dropped too early." }),
    next_cursor: z.string().nullable().openapi({ description: "The next page of tenants; null after the last." }),
  })
  .openapi("VaultResealPass");

export const route = createRoute({
  method: "post",
  path: "/v1/admin/vault/reseal",
  operationId: "resealVaults",
  summary: "Re-encrypt a page of tenants' vaults",
  description:
    "Runs each tenant's re-encryption pass to its end, for the tenants of one page of the registry. After a key rotation, call it page after page (`cursor`) until `next_cursor` is null; once every page answered `remaining: 0`, the old key may be dropped from `VAULT_KEYS`. 503 `vault_unavailable` without `VAULT_KEYS`.",
  tags: ["Admin"],
  security: platformAdminAuth(),
  middleware: [requireScope("platform:admin")] as const,
  request: { query: TenantListQuerySchema },
  responses: {
    200: jsonContent(ResealPageSchema, "What the page's passes did."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  if (!c.env.VAULT_KEYS) throw new ApiError("vault_unavailable");
  const { limit, cursor } = c.req.valid("query");
  const page = await tenantRegistryStub(c.env).list({ limit, cursor: cursor ?? null });
  const total = { tenants: page.data.length, resealed: 0, remaining: 0, unreadable: 0 };
  // One tenant at a time: each pass opens and seals every stale row of its vault.
  for (const entry of page.data) {
    const answer = await vaultStub(c.env, entry.tenant_id).reseal(entry.tenant_id);
    if (!answer.ok) throw new ApiError("vault_unavailable");
    total.resealed += answer.value.resealed;
    total.remaining += answer.value.remaining;
    total.unreadable += answer.value.unreadable;
  }
  return c.json({ ...total, next_cursor: page.next_cursor }, 200);
};
