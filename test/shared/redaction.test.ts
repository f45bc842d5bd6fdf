/**
 * The redaction detectors: what each finds, what it must leave alone (years, counts, ids, dates,
 * versions, timestamps), checksums, overlaps, and adversarial inputs that must stay linear.
 */
import { describe, expect, it } from "vitest";
import { ibanValid, luhnValid } from "../../src/shared/redaction/detectors";
import { MAX_REDACTION_INPUT_CHARS, redactText } from "../../src/shared/redaction/redact";
import { detectorsFor, parseRedaction, REDACTION_DETECTORS } from "../../src/shared/redaction/settings";

const ALL = REDACTION_DETECTORS;

describe("the email detector", () => {
  it.each([
    ["write to alice@example.com today", "write to [redacted:email] today"],
    ["<bob.smith+tag@mail.example.co.uk>", "<[redacted:email]>"],
    ["mail me: a_b%c@sub-domain.example.org.", "mail me: [redacted:email]."],
    ["Alice.O'Neil@example.com wrote", "[redacted:email] wrote"],
    ["quoted 'alice@example.com' here", "quoted '[redacted:email]' here"],
  ])("redacts %j", (text, expected) => {
    expect(redactText(text, ["email"])).toBe(expected);
  });

  it.each(["user@localhost", "@handle", "a@b", "price: 5@3.00", "name@domain."])("leaves %j", (text) => {
    expect(redactText(text, ["email"])).toBe(text);
  });
});

describe("the phone detector", () => {
  it.each([
    "+1 415 555 0100",
    "+14155550100",
    "+44 20 7946 0958",
    "+49 (30) 1234567",
    "+33 6 12 34 56 78",
    "(415) 555-0100",
    "415-555-0100",
    "415.555.0100",
    "020 7946 0958",
    "030 1234567",
    "06-12345678",
    "06 12 34 56 78",
    "01.23.45.67.89",
    "0049 30 1234567",
    "0033 6 12 34 56 78",
  ])("redacts %j", (phone) => {
    expect(redactText(`call ${phone} now`, ["phone"])).toBe("call [redacted:phone] now");
  });

  it.each([
    ["alice +14155550100 42 1990", "alice [redacted:phone] 42 1990"],
    ["+1 415 555 0100 2024-01-15", "[redacted:phone] 2024-01-15"],
    ["+44 20 7946 0958 2024 12", "[redacted:phone] 2024 12"],
    ["020 7946 0958 1234 5678", "[redacted:phone] 1234 5678"],
  ])("redacts the number in %j, not the numbers written after it", (text, expected) => {
    expect(redactText(text, ["phone"])).toBe(expected);
  });

  it.each([
    "in 2024 we sold 1500000 units",
    "order 12345678901 shipped",
    "1,500,000 requests",
    "on 2024-01-15 at 10:30:00",
    "dated 01/12/2024",
    "version 1.2.3 of 10.0.19045",
    "from 192.168.100.200",
    "id 550e8400-e29b-41d4-a716-446655440000",
    "ts 1733561234567",
    "pi is 3.14159265358979",
    "score +12",
    "the range 100-200-300",
    "123-456.7890",
    "ISBN 978-3-16-148410-0",
    "count: 123 456 7890",
    "100-200-3000",
  ])("leaves %j", (text) => {
    expect(redactText(text, ["phone"])).toBe(text);
  });
});

describe("the credit card detector", () => {
  it.each(["4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111", "5555555555554444", "3782 822463 10005", "378282246310005"])(
    "redacts %j, Luhn-valid",
    (card) => {
      expect(redactText(`card ${card}.`, ["credit_card"])).toBe("card [redacted:credit_card].");
    },
  );

  it.each([
    ["a Luhn-invalid number", "4111 1111 1111 1112"],
    ["epoch milliseconds", "1733561234567"],
    ["a longer run of digits", "41111111111111110000000"],
    ["digits inside an id", "ord_4111111111111111"],
    ["digits inside a word", "x4111111111111111y"],
    ["twelve digits", "411111111111"],
    ["an IMEI (15 digits, Luhn-valid)", "imei 356938035643809"],
    ["an EAN-13 (valid as an EAN and by Luhn)", "ean 4006381333924"],
    ["a Mastercard-shaped number of 19 digits", "5555555555554444000"],
  ])("leaves %s", (_what, text) => {
    expect(redactText(text, ["credit_card"])).toBe(text);
  });

  it.each([
    ["4111 1111 1111 1111 12/27 cvc 123", "[redacted:credit_card] 12/27 cvc 123"],
    ["5555 5555 5555 4444 123", "[redacted:credit_card] 123"],
    ["4111-1111-1111-1111-42", "[redacted:credit_card]-42"],
  ])("redacts the card in %j, not the numbers written after it", (text, expected) => {
    expect(redactText(text, ["credit_card"])).toBe(expected);
  });

  it("checks Luhn", () => {
    expect(luhnValid("79927398713")).toBe(true);
    expect(luhnValid("79927398710")).toBe(false);
  });
});

describe("the IBAN detector", () => {
  it.each(["DE89370400440532013000", "DE89 3704 0044 0532 0130 00", "GB82 WEST 1234 5698 7654 32", "FR1420041010050500013M02606"])(
    "redacts %j",
    (iban) => {
      expect(redactText(`pay to ${iban} please`, ["iban"])).toBe("pay to [redacted:iban] please");
    },
  );

  it("redacts an IBAN written in lowercase", () => {
    expect(redactText("pay de89 3704 0044 0532 0130 00 now", ["iban"])).toBe("pay [redacted:iban] now");
    expect(redactText("pay gb82west12345698765432", ["iban"])).toBe("pay [redacted:iban]");
  });

  it("stops before a word in capitals written after the number", () => {
    expect(redactText("DE89 3704 0044 0532 0130 00 OK", ["iban"])).toBe("[redacted:iban] OK");
  });

  it.each(["DE89370400440532013001", "ABCD1234567890123456", "XX00 0000 0000 0000"])("leaves %j (checksum)", (text) => {
    expect(redactText(text, ["iban"])).toBe(text);
  });

  it("checks mod 97", () => {
    expect(ibanValid("GB82WEST12345698765432")).toBe(true);
    expect(ibanValid("GB83WEST12345698765432")).toBe(false);
  });
});

describe("the secret detector", () => {
  const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
  it.each([
    ["an AWS access key id", "AKIAIOSFODNN7EXAMPLE"],
    ["an OpenAI key", "sk-proj-abcdefghijklmnopqrstuvwxyz0123"],
    ["an Anthropic key", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz_0123"],
    ["a GitHub token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"],
    ["a GitHub fine-grained token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"],
    ["a Slack token", "xoxb-123456789012-1234567890123-abcdefghij"],
    ["a JWT", jwt],
    ["a bearer token", "Bearer abcdefghijklmnop0123456789"],
    ["a Stripe secret key", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"],
    ["a Stripe restricted test key", "rk_test_4eC39HqLyjWDarjtT1zdp7dc"],
    ["a Google API key", "AIzaSyD-abcdefghijklmnopqrstuvwxyz01234"],
  ])("redacts %s", (_what, secret) => {
    expect(redactText(`key=${secret} end`, ["secret"])).toBe("key=[redacted:secret] end");
  });

  it("redacts a PEM private key block, and one cut before its end", () => {
    const block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabcd\n-----END RSA PRIVATE KEY-----";
    expect(redactText(`before\n${block}\nafter`, ["secret"])).toBe("before\n[redacted:secret]\nafter");
    expect(redactText("x -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg", ["secret"])).toBe("x [redacted:secret]");
  });

  it("redacts a JWT cut by the end of the text, as a read tool output is", () => {
    const long = `eyJhbGciOiJIUzI1NiJ9.${"a".repeat(3_000)}`;
    expect(redactText(`token ${long}`, ["secret"])).toBe("token [redacted:secret]");
  });

  it.each(["sk-short", "risk-assessment-of-the-quarterly-report", "the bearer of news", "AKIA123", "eyJ.not.a-jwt"])(
    "leaves %j",
    (text) => {
      expect(redactText(text, ["secret"])).toBe(text);
    },
  );
});

describe("redaction", () => {
  it("runs only the detectors asked for", () => {
    const text = "alice@example.com +1 415 555 0100";
    expect(redactText(text, ["email"])).toBe("[redacted:email] +1 415 555 0100");
    expect(redactText(text, [])).toBe(text);
    expect(redactText(text, ALL)).toBe("[redacted:email] [redacted:phone]");
  });

  it("settles overlaps: the earliest match, then the longest", () => {
    // The card's digits could also be read as a phone number's; one mark replaces them.
    expect(redactText("4111 1111 1111 1111", ALL)).toBe("[redacted:credit_card]");
    expect(redactText("Bearer sk-ant-api03-abcdefghijklmnopqrstuvwxyz", ALL)).toBe("[redacted:secret]");
  });

  it("keeps text in other scripts and emoji around a match", () => {
    expect(redactText("écrivez à zoë 😀 alice@example.com 😀", ALL)).toBe("écrivez à zoë 😀 [redacted:email] 😀");
  });

  it("stays linear on adversarial inputs", () => {
    const size = 100_000;
    const inputs = [
      "1".repeat(size),
      "4111 ".repeat(size / 5),
      "a@".repeat(size / 2),
      "+1 ".repeat(size / 3),
      "DE89 ".repeat(size / 5),
      "eyJaaaaa.".repeat(size / 9),
    ];
    for (const input of inputs) expect(redactText(input, ALL).length).toBeLessThanOrEqual(input.length);
    expect(redactText("-----BEGIN PRIVATE KEY-----".padEnd(size, "A"), ALL)).toBe("[redacted:secret]");
    expect(redactText("1".repeat(size), ALL)).toBe("1".repeat(size));
  });

  it("redacts a text longer than one pass piece by piece, cut at line breaks", () => {
    const line = "x".repeat(99) + "\n";
    const filler = line.repeat(MAX_REDACTION_INPUT_CHARS / line.length);
    const text = `${filler}alice@example.com\n${filler}bob@example.com`;
    const out = redactText(text, ["email"]);
    expect(out).toBe(`${filler}[redacted:email]\n${filler}[redacted:email]`);
  });
});

describe("the setting", () => {
  it("is null or both lists of known names, in a fixed order", () => {
    expect(parseRedaction(null)).toBeNull();
    expect(parseRedaction({ detectors: ["secret", "email", "email"], apply_to: ["model_output", "tool_output"] })).toEqual({
      detectors: ["email", "secret"],
      apply_to: ["tool_output", "model_output"],
    });
    expect(() => parseRedaction({ detectors: ["ssn"], apply_to: ["tool_output"] })).toThrow(TypeError);
    expect(() => parseRedaction({ detectors: [], apply_to: ["tool_output"] })).toThrow(TypeError);
    expect(() => parseRedaction({ detectors: ["email"] })).toThrow(TypeError);
  });

  it("names the detectors of each kind of content", () => {
    const settings = { detectors: ["email" as const], apply_to: ["tool_output" as const] };
    expect(detectorsFor(settings, "tool_output")).toEqual(["email"]);
    expect(detectorsFor(settings, "user_input")).toEqual([]);
    expect(detectorsFor(null, "tool_output")).toEqual([]);
  });
});
