/** The built-in `http_fetch` tool as the registry sees it; the fetching lives in ../http-fetch. */
import { HTTP_FETCH_AT_MOST_ONCE, HTTP_FETCH_DEFINITION, runHttpFetch } from "../http-fetch";
import type { Tool } from "../tool";

export const httpFetchTool: Tool = {
  kind: "builtin",
  requiresApproval: false,
  atMostOnce: HTTP_FETCH_AT_MOST_ONCE,
  definition: HTTP_FETCH_DEFINITION,
  run: (input, ctx) =>
    runHttpFetch(input as Parameters<typeof runHttpFetch>[0], {
      allowPrivate: ctx.allowPrivateUrls,
      maxOutputChars: ctx.maxOutputChars,
      signal: ctx.signal,
    }),
};
