// The mapping of failed calls to typed errors, on constructed statuses (no server).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Code, ConnectError } from "@connectrpc/connect";
import { EngramError, InternalError, ResourceExhaustedError, toEngramError } from "../src/index.js";

const CORE_OVERSIZE = "SERVER: Received message larger than max (67108864 vs. 16777216)";
const EXPLAINED =
  "the request is 67,108,864 bytes, far over the server's size limit: its transport" +
  " refuses anything over 16,777,216 bytes, four times the server's limit per request" +
  " (setting max_request_bytes, environment ENGRAM_MAX_REQUEST_BYTES): send less per" +
  " call, e.g. split the batch, or have the operator raise it";

test("gRPC core's bare refusal of an oversize request is explained", () => {
  const error = toEngramError(new ConnectError(CORE_OVERSIZE, Code.ResourceExhausted, { "grpc-status": "8" }));
  assert.ok(error instanceof ResourceExhaustedError);
  assert.equal(error.codeName, "RESOURCE_EXHAUSTED");
  assert.equal(error.rawMessage, EXPLAINED);
  assert.equal(error.message, `RESOURCE_EXHAUSTED: ${EXPLAINED}`);
  assert.deepEqual(error.quotaViolations, [{ subject: "request", description: `max_request_bytes: ${EXPLAINED}` }]);
  assert.deepEqual(
    error.details.map((d) => d.type),
    ["google.rpc.QuotaFailure"],
  );
  assert.equal(error.metadata.get("grpc-status"), "8");
  assert.ok(error.cause instanceof ConnectError);
});

test("only gRPC core's bare oversize refusal is rewritten", () => {
  const cases: [string, ConnectError][] = [
    ["another code", new ConnectError(CORE_OVERSIZE, Code.Internal)],
    ["another text", new ConnectError("tenant quota of memories used up", Code.ResourceExhausted)],
    ["the text not at the start", new ConnectError(`proxy: ${CORE_OVERSIZE}`, Code.ResourceExhausted)],
    // The server's own google.rpc.Status came with it: that is the answer.
    ["a rich status", new ConnectError(CORE_OVERSIZE, Code.ResourceExhausted, { "grpc-status-details-bin": "CAg" })],
  ];
  for (const [name, connect] of cases) {
    const error = toEngramError(connect);
    assert.ok(error instanceof EngramError, name);
    assert.equal(error.code, connect.code, name);
    assert.equal(error.rawMessage, connect.rawMessage, name);
    assert.deepEqual(error.quotaViolations, [], name);
  }
  assert.ok(toEngramError(cases[0][1]) instanceof InternalError);
});
