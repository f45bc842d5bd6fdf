/**
 * A tenant's notification receiver, in the test process: it records every request the platform
 * sends, answers 500 while told to fail, can hold requests unanswered, and checks signatures the
 * way the README tells receivers to. It lives outside the platform's processes, so what it saw
 * survives every kill.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Notification } from "../../../src/notifications/types";
import { LOOPBACK } from "./environment";

export interface Received {
  received_at: number;
  headers: Record<string, string>;
  body_text: string;
  body: Notification;
  /** The status answered; null when the platform went away before an answer. */
  answered: number | null;
}

export class NotificationReceiver {
  readonly received: Received[] = [];
  #failUntil = 0;
  #holding = false;
  #held = new Set<() => void>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(path = "/notifications"): Promise<NotificationReceiver> {
    let receiver: NotificationReceiver | null = null;
    const server = createServer((req, res) => void receiver!.#handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, LOOPBACK, () => resolve());
    });
    const address = server.address();
    if (!address || typeof address === "string") throw new Error("receiver has no TCP address");
    receiver = new NotificationReceiver(server, `http://${LOOPBACK}:${address.port}${path}`);
    return receiver;
  }

  /** Answers 500 to everything until `ms` from now. */
  failFor(ms: number): void {
    this.#failUntil = Date.now() + ms;
  }

  get failingUntil(): number {
    return this.#failUntil;
  }

  /** Requests from now on wait unanswered until `release`. */
  hold(): void {
    this.#holding = true;
  }

  release(): void {
    this.#holding = false;
    for (const release of [...this.#held]) release();
    this.#held.clear();
  }

  /** The requests answered 2xx. */
  delivered(): Received[] {
    return this.received.filter((r) => r.answered !== null && r.answered >= 200 && r.answered < 300);
  }

  /** Event ids answered 2xx, with how many times each. */
  deliveredCounts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const r of this.delivered()) counts.set(r.body.id, (counts.get(r.body.id) ?? 0) + 1);
    return counts;
  }

  async close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const bodyText = Buffer.concat(chunks).toString("utf8");
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers[name] = value;
    const record: Received = {
      received_at: Date.now(),
      headers,
      body_text: bodyText,
      body: JSON.parse(bodyText) as Notification,
      answered: null,
    };
    this.received.push(record);
    if (this.#holding) {
      const gone = await new Promise<boolean>((resolve) => {
        const release = () => resolve(false);
        this.#held.add(release);
        res.once("close", () => {
          this.#held.delete(release);
          resolve(true);
        });
      });
      if (gone) return;
    }
    const status = Date.now() < this.#failUntil ? 500 : 200;
    res.once("finish", () => {
      record.answered = status;
    });
    res.writeHead(status, { "content-type": "text/plain" }).end(status === 200 ? "thanks" : "down for maintenance");
  }
}

/** The README's verifier: a fresh timestamp and any one `v1=` signature that matches. */
export function verifySignature(received: Pick<Received, "headers" | "body_text">, secret: string, nowMs = Date.now()): boolean {
  const timestamp = Number(received.headers["x-webhook-timestamp"]);
  if (!Number.isInteger(timestamp) || Math.abs(nowMs / 1000 - timestamp) > 300) return false;
  const expected = Buffer.from(`v1=${createHmac("sha256", secret).update(`${timestamp}.${received.body_text}`).digest("hex")}`);
  return String(received.headers["x-webhook-signature"] ?? "")
    .split(",")
    .map((entry) => Buffer.from(entry.trim()))
    .some((given) => given.length === expected.length && timingSafeEqual(given, expected));
}
