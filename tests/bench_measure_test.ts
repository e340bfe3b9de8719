// bench/measure.ts's parseWrk, the one reader of wrk's output for every bench script.
import assert from "node:assert/strict";
import { parseWrk } from "../bench/measure.ts";

const LATENCY = `Running 1s test @ http://127.0.0.1:18080/users/42
  1 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   611.79us  302.11us   1.02s    93.17%
    Req/Sec    52.84k     2.37k   55.77k    80.00%
  Latency Distribution
     50%  564.00us
     75%  642.00us
     90%  753.00us
     99%    1.49ms
  52583 requests in 1.00s, 12.24MB read
  Socket errors: connect 0, read 3, write 0, timeout 2
  Non-2xx or 3xx responses: 7
Requests/sec:  52574.40
Transfer/sec:     12.24MB
`;

Deno.test("parseWrk: counts, rates and latencies (us, ms, s) from wrk --latency", () => {
  assert.deepEqual(parseWrk(LATENCY), {
    requests: 52583,
    rps: 52574.4,
    p50: 0.564,
    p99: 1.49,
    maxMs: 1020,
    socketErrors: 5,
    non2xx: 7,
  });
});

Deno.test("parseWrk: without --latency or errors, no percentiles and no errors; no output, no numbers", () => {
  const plain = LATENCY.replace(/ {2}Latency Distribution[\s\S]*?99%.*\n/, "")
    .replace(/ {2}Socket errors.*\n {2}Non-2xx.*\n/, "");
  const result = parseWrk(plain);
  assert.equal(result.rps, 52574.4);
  assert.ok(Number.isNaN(result.p50) && Number.isNaN(result.p99));
  assert.equal(result.socketErrors, 0);
  assert.equal(result.non2xx, 0);
  const none = parseWrk("unable to connect to 127.0.0.1:18080 Connection refused\n");
  assert.ok(Number.isNaN(none.rps) && Number.isNaN(none.requests));
});
