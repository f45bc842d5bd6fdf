/** Chooses the provider for a model id by its prefix; the loop sees only `ModelProvider`. */
import type { Config } from "../../../config";
import { anthropicProvider } from "./anthropic";
import { parseModel } from "../../../models/catalog";
import { openAiProvider } from "./openai";
import type { ModelProvider } from "./provider";

export interface ProviderChoice {
  provider: ModelProvider;
  /** The id the provider knows, the prefix removed. */
  model: string;
}

export function providerFor(model: string, config: Config): ProviderChoice {
  const { provider, name } = parseModel(model);
  if (provider === "openai")
    return { provider: openAiProvider({ baseUrl: config.openai.baseUrl, apiKey: config.openai.apiKey }), model: name };
  return { provider: anthropicProvider({ baseUrl: config.anthropic.baseUrl, apiKey: config.anthropic.apiKey }), model: name };
}
