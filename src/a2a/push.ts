/**
 * A context's push notification config: its session's `notify_url`, set by the context's first
 * message and fixed for its life. A URL sent later is compared as stored (normalized by the same
 * check `notify_url` passes), and the stored URL is shown to no end user and echoed to no one.
 */
import type { TaskPushNotificationConfig } from "@a2a-js/sdk";
import { RequestMalformedError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { principalKind } from "../auth/principal";
import type { Actor } from "../sessions/actor";
import { checkNotifyUrl } from "../sessions/tool-specs";
import type { Session } from "../session-config/types";

/** The one push notification config a task has. */
export const PUSH_CONFIG_ID = "notify_url";

/** An end user's token may not choose where notifications go (as `notify_url` on a session it creates). */
export const END_USER_REFUSED = "An end user cannot choose where notifications go: send no push notification config.";

/** Refuses a push URL other than the context's own; the stored URL is not named in the error. */
export function requireSamePushUrl(actor: Actor, session: Pick<Session, "notify_url">, raw: string): void {
  if (principalKind(actor.principal) === "end_user") throw new RequestMalformedError({ message: END_USER_REFUSED });
  const checked = checkNotifyUrl(raw, { allowPrivateUrls: actor.config.allowPrivateUrls, webhookOrigins: actor.settings.webhook_origins });
  if (!checked.ok) throw new RequestMalformedError({ message: `The push notification URL: ${checked.error.message}` });
  if (session.notify_url === null || session.notify_url !== checked.url)
    throw new UnsupportedOperationError({
      message:
        "A context's push notification URL is set by its first message (configuration.taskPushNotificationConfig) and does not change.",
    });
}

/** A config's own credentials are refused, not dropped: notifications are signed with the tenant's webhook secret. */
export function refusePushCredentials(config: Pick<TaskPushNotificationConfig, "token" | "authentication"> | undefined): void {
  if (config !== undefined && (config.token !== "" || config.authentication !== undefined))
    throw new RequestMalformedError({
      message: "A push notification config takes no token or authentication: notifications are signed with the tenant's webhook secret.",
    });
}

/** The context's config as this caller may see it: none for an end user (the URL may be the tenant's). */
export function visiblePushConfig(actor: Actor, session: Pick<Session, "notify_url">, taskId: string): TaskPushNotificationConfig | null {
  if (session.notify_url === null || principalKind(actor.principal) === "end_user") return null;
  return { tenant: "", id: PUSH_CONFIG_ID, taskId, url: session.notify_url, token: "", authentication: undefined };
}
