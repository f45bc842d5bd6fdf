/**
 * Files of the Worker's static assets under a path prefix (the API reference's script, the
 * console's bundle). Not API operations, so not in the document; every request reaches the
 * Worker first (`run_worker_first`), so these answers carry a request id, and a missing file is
 * the same problem document as any unknown path.
 */
import type { App } from "../context";
import { ApiError } from "../errors";

/** Serves `${prefix}*` from the `ASSETS` binding; `prefix` ends with `/`. */
export function registerStaticAssets(app: App, prefix: string): void {
  app.get(`${prefix}*`, async (c) => {
    const asset = await c.env.ASSETS.fetch(c.req.raw);
    if (asset.status === 404) throw new ApiError("not_found", "No route matches this path.");
    const response = new Response(asset.body, asset);
    response.headers.set("X-Content-Type-Options", "nosniff");
    return response;
  });
}
