/** The Worker entry: the gateway app and the Durable Object classes it routes to. */
export { Agent } from "./agents/agent";
export { TenantIndex } from "./tenants/tenant-index";

export default {
  async fetch(): Promise<Response> {
    return new Response("ok");
  },
} satisfies ExportedHandler<Cloudflare.Env>;
