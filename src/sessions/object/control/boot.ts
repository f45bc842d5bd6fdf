/** What the session object does on every wake, before any call: its runtime set up and its storage made current. */
import { familyHooks } from "../subagents/family";
import { withCanary } from "../canary/tell-canary";
import type { SessionEngine } from "../engine/engine";

/** The engine as the door built it: the family's hooks are made from the same engine, which they call back. */
type BootHost = SessionEngine;

export function boot(ctx: DurableObjectState, engine: BootHost): void {
  // A watcher's keep-alive "ping" is answered by the runtime without waking the object.
  ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  // Storage written by an older version is migrated first, and the alarm is set for what is due
  // (it may have been lost with a crash between a write and the alarm).
  void ctx.blockConcurrencyWhile(async () => {
    engine.store.migrateIfCreated();
    engine.family = withCanary(familyHooks(engine), engine);
    await engine.syncAlarm();
  });
}
