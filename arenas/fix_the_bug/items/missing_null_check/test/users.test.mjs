import { test } from "node:test";
import assert from "node:assert/strict";
import { normalizedEmail } from "../src/users.mjs";

const db = {
  async get(table, id) {
    return id === "u1" ? { id: "u1", email: "  Ada@Example.COM " } : undefined;
  },
};

test("the email is trimmed and lower-cased", async () => {
  assert.equal(await normalizedEmail(db, "u1"), "ada@example.com");
});

test("an unknown user gives an empty string", async () => {
  assert.equal(await normalizedEmail(db, "nobody"), "");
});
