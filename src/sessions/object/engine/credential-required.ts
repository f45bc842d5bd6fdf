/**
 * A tool call could not use the vault credential its tool names: the session's event
 * `credential_required` and the status webhook `session.credential_required` tell the backend
 * which end user (or the tenant) must connect which credential. Both are written in one
 * transaction, so a crash keeps both or neither.
 */
import type { CredentialRequired } from "../../../egress/credentials";

export type { CredentialRequired };
import { notificationSession } from "../report/notification-snapshot";
import type { UnitWriter } from "./unit-scope";
import type { Outbox } from "../../../notifications/outbox";

/** What of the session's engine this needs (the engine is the one implementation). */
type Engine = Pick<UnitWriter, "store" | "emit" | "requireSession" | "toolbox"> & {
  readonly outbox: Pick<Outbox, "record">;
  transaction<T>(fn: () => T): T;
};

/** Once per run for each credential and failure: a call that fails again on it adds nothing the backend did not hear. */
export function recordCredentialRequired(engine: Engine, data: CredentialRequired): void {
  engine.transaction(() => {
    if (!engine.store.firstCredentialRequired(`${data.credential}\0${data.code}`)) return;
    engine.emit("credential_required", data);
    const session = notificationSession(engine.requireSession(), engine.store.run(), engine.store.openToolCalls(), engine.toolbox());
    engine.outbox.record("session.credential_required", session, data);
  });
}
