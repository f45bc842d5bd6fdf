import { DurableObject } from "cloudflare:workers";
export class Agent extends DurableObject<Cloudflare.Env> {
  async ping(): Promise<string> { return "pong"; }
  override async alarm(): Promise<void> {}
}
