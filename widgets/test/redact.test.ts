// The saver box masks a typed password as Python does (graphnb/widget/redact.py).
import assert from "node:assert/strict";
import { test } from "node:test";
import { maskUrl } from "../src/redact";

test("the password of the user info is masked", () => {
  assert.equal(maskUrl("postgresql://app:s3cret@db.example:5432/runs"), "postgresql://app:***@db.example:5432/runs");
  assert.equal(maskUrl("mysql://root:pw-8Kq@z/Ttx@127.0.0.1:1/test"), "mysql://root:***@127.0.0.1:1/test");
  assert.equal(maskUrl("postgresql://u:p?w@h/db"), "postgresql://u:***@h/db");
  assert.equal(maskUrl("postgresql://u:pw@h/db?x=a@b"), "postgresql://u:***@h/db?x=a@b");
});

test("password parameters are masked", () => {
  assert.equal(maskUrl("postgresql://h/db?user=app&password=s3cret"), "postgresql://h/db?user=app&password=***");
});

test("URLs without a password are left as they are", () => {
  for (const url of ["memory://", "sqlite:///C:/x@y.db", "postgresql://u@h/db", "sqlite:///threads.db", "", "not a url"]) {
    assert.equal(maskUrl(url), url);
  }
});
