/** The end-user routes: minting a token, revoking a subject's tokens. */
import type { App } from "../context";
import * as issueToken from "./issue-token";
import * as revokeTokens from "./revoke-tokens";

export function registerEndUserRoutes(app: App): void {
  app.openapi(issueToken.route, issueToken.handler);
  app.openapi(revokeTokens.route, revokeTokens.handler);
}
