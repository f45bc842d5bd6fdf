/** The console's credential form: only the chosen type's fields go into the body, origins one a line. */
import { describe, expect, it } from "vitest";
import { credentialBody, EMPTY_CREDENTIAL_FORM } from "../../../console/src/credential-form";

describe("the credential form's body", () => {
  const filled = {
    ...EMPTY_CREDENTIAL_FORM,
    value: "tok",
    header: " X-Api-Key ",
    accessToken: "acc",
    refreshToken: "ref",
    tokenUrl: " https://auth.example.com/token ",
    clientId: "",
    clientSecret: "sec",
    expiresAt: "2030-01-01T00:00Z",
    origins: "https://a.example.com\n\n  https://b.example.com  \n",
  };
  const origins = ["https://a.example.com", "https://b.example.com"];

  it("sends a bearer's token alone", () => {
    expect(credentialBody({ ...filled, type: "bearer" })).toEqual({ type: "bearer", value: "tok", allowed_origins: origins });
  });

  it("sends a header's name and value", () => {
    expect(credentialBody({ ...filled, type: "header" })).toEqual({
      type: "header",
      header: "X-Api-Key",
      value: "tok",
      allowed_origins: origins,
    });
  });

  it("sends oauth2's fields, leaving out the empty ones", () => {
    expect(credentialBody({ ...filled, type: "oauth2" })).toEqual({
      type: "oauth2",
      oauth2: {
        access_token: "acc",
        refresh_token: "ref",
        client_secret: "sec",
        token_url: "https://auth.example.com/token",
        expires_at: new Date("2030-01-01T00:00Z").toISOString(),
      },
      allowed_origins: origins,
    });
    expect(credentialBody({ ...EMPTY_CREDENTIAL_FORM, type: "oauth2", accessToken: "acc" })).toEqual({
      type: "oauth2",
      oauth2: { access_token: "acc" },
      allowed_origins: [],
    });
  });
});
