/**
 * How the platform knows its model is the development mock: `npm start` gives it this provider
 * key (scripts/dev-args.mjs reads it from here) when it points the platform at the mock model.
 */
export const MOCK_PROVIDER_KEY = "mock-model";
