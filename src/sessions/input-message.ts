/** Which stored message starts a run: one a person sent, the rule every edge (chat, A2A, AG-UI) reads runs by. */
import type { Message } from "../session-config/types";

/** A message a person sent (text or images), as opposed to the tool results the loop writes. */
export function isInputMessage(message: Pick<Message, "role" | "content">): boolean {
  return message.role === "user" && message.content.some((block) => block.type === "text" || block.type === "image");
}
