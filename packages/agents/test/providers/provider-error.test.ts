import { describe, expect, it } from "vitest";
import { sanitizeProviderText } from "../../src/providers/provider-error.js";

describe("sanitizeProviderText", () => {
  it("redacts configured secrets and key-like tokens", () => {
    const out = sanitizeProviderText(
      "bad key my-secret-value, sk-proj-abcdEFGH1234, sk-VKMIs***wjh3, Authorization: Bearer abc.def, api_key=xyz",
      ["my-secret-value"],
    );
    expect(out).toBe("bad key ***, sk-***, sk-***, Authorization: Bearer ***, api_key=***");
  });

  it("summarises HTML pages by title, without markup", () => {
    expect(
      sanitizeProviderText(
        "503 <html><head><title>Service Unavailable &amp; down</title></head><body><p>x</p></body></html>",
        [],
      ),
    ).toBe("503 HTML error page: Service Unavailable & down");
    expect(sanitizeProviderText("<html><body><div>Gateway <b>Timeout</b></div></body></html>", [])).toBe(
      "HTML error page: Gateway Timeout",
    );
  });

  it("bounds the length", () => {
    expect(sanitizeProviderText("x".repeat(5000), []).length).toBe(500);
  });
});
