/** The one way a tenant-wide call reaches many session objects: bulk cancel, closing streams, a policy change. */

/** Session objects asked at once: enough to be quick, few enough not to flood the runtime. */
export const SESSION_FAN_OUT = 8;

/** Runs `one` for every session id, `SESSION_FAN_OUT` at a time; `one` handles its own failures. */
export async function eachSession(sessionIds: readonly string[], one: (sessionId: string) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < sessionIds.length) await one(sessionIds[next++] as string);
  };
  await Promise.all(Array.from({ length: Math.min(SESSION_FAN_OUT, sessionIds.length) }, worker));
}
