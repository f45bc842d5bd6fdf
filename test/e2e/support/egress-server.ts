/**
 * The origins a vault credential may or may not go to, in the test process: a webhook receiver,
 * an OAuth2 token endpoint (refresh-token grant), a redirect to another origin and an OTLP
 * collector. Every request is recorded with its headers and body, so a test sees exactly what
 * the platform sent where; it outlives every restart of the platform.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { LOOPBACK } from "./environment";

export interface SeenRequest {
  path: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

/** Token endpoint behaviour per refresh token: the next tokens, or a refusal (a revoked grant). */
export type Grant = { access_token: string; refresh_token?: string; expires_in?: number } | "revoked";

export class EgressServer {
  readonly seen: SeenRequest[] = [];
  readonly grants = new Map<string, Grant>();
  /** Where `/redirect/*` sends a request: another origin. */
  redirectTo = "";
  /** `Authorization` values the webhook receiver answers 401. */
  readonly refused = new Set<string>();
  /** The token endpoint answers after this many ms, so concurrent refreshes overlap. */
  tokenDelayMs = 300;

  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  static async start(): Promise<EgressServer> {
    let self: EgressServer | null = null;
    const server = createServer((req, res) => {
      void readBody(req).then(async (body) => {
        const seen: SeenRequest = { path: req.url ?? "/", method: req.method ?? "GET", headers: flat(req), body };
        self!.seen.push(seen);
        const answer = await self!.#answer(seen);
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body);
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, LOOPBACK, () => resolve());
    });
    const address = server.address();
    if (!address || typeof address === "string") throw new Error("egress server has no TCP address");
    self = new EgressServer(server, `http://${LOOPBACK}:${address.port}`);
    return self;
  }

  url(path: string): string {
    return `${this.origin}${path}`;
  }

  /** Requests to paths starting with `prefix`. */
  to(prefix: string): SeenRequest[] {
    return this.seen.filter((request) => request.path.startsWith(prefix));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  async #answer(seen: SeenRequest): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    const json = (status: number, value: unknown) => ({
      status,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(value),
    });
    if (seen.path.startsWith("/hook/")) {
      // A token it was told to refuse (revoked at the API's side) gets a 401, as an API answers.
      return this.refused.has(seen.headers.authorization ?? "") ? json(401, { error: "bad token" }) : json(200, { output: "hook ok" });
    }
    if (seen.path.startsWith("/redirect/")) return { status: 307, headers: { location: this.redirectTo }, body: "" };
    if (seen.path === "/token") {
      await new Promise((resolve) => setTimeout(resolve, this.tokenDelayMs));
      const grant = this.grants.get(new URLSearchParams(seen.body).get("refresh_token") ?? "");
      if (!grant || grant === "revoked") return json(400, { error: "invalid_grant" });
      return json(200, { token_type: "Bearer", expires_in: 3600, ...grant });
    }
    return json(200, {});
  }
}

function flat(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  return out;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
