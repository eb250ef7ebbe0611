import { test } from "node:test";
import assert from "node:assert/strict";
import { charLiteral, stringLiteral } from "../lib/literals.mjs";

test("char literals", () => {
  assert.equal(charLiteral("a"), "'a'");
  assert.equal(charLiteral("\n"), "'\\n'");
  assert.equal(charLiteral("'"), "'\\''");
  assert.equal(charLiteral("\\"), "'\\\\'");
});

test("string literals", () => {
  assert.equal(stringLiteral("a'b"), '"a\'b"');
  assert.equal(stringLiteral('say "hi"'), '"say \\"hi\\""');
  assert.equal(stringLiteral("C:\\dir"), '"C:\\\\dir"');
});
