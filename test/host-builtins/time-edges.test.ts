/** time.* at the edges: OPA's errors for out-of-range results and operands, never a JavaScript exception. */
import { describe, expect, it } from "vitest";
import { call } from "./helpers.js";

describe("time.add_date at the edges", () => {
  it("an operand beyond int64 is not an int, as OPA's IntOperand says", () => {
    expect(call("time.add_date", 0, 1e300, 0, 0)).toEqual({ error: "eval_type_error: operand 2 must be integer number but got floating-point number" });
    expect(call("time.add_date", 0, 0, 0, 2 ** 64)).toEqual({ error: "eval_type_error: operand 4 must be integer number but got floating-point number" });
  });

  it("a result outside int64 nanoseconds is OPA's range error", () => {
    expect(call("time.add_date", 1703444325734390000, 2147483647, 0, 0)).toEqual({ error: "eval_builtin_error: time outside of valid range" });
    expect(call("time.add_date", 1703444325734390000, -2147483647, 0, 0)).toEqual({ error: "eval_builtin_error: time outside of valid range" });
    expect(call("time.add_date", 0, 2262, 1, 1)).toEqual({ error: "eval_builtin_error: time outside of valid range" });
  });

  it("months and days overflow into the next fields as Go's AddDate", () => {
    expect(call("time.add_date", 1703444325000000000, 0, 15, 0)).toEqual({ ok: 1742842725000000000n });
    expect(call("time.add_date", 0, 0, 1, 30)).toEqual({ ok: 5270400000000000 }); // Jan 1 + 1 month + 30 days = Mar 3
  });
});

describe("time parsing at the edges", () => {
  it("a layout without a year parses to year 0, outside the nanosecond range", () => {
    expect(call("time.parse_ns", "Jan _2 15:04:05", "Feb  3 10:00:00")).toEqual({ error: "eval_builtin_error: time outside of valid range" });
  });

  it("an out-of-range field is Go's parse error", () => {
    expect(call("time.parse_ns", "2006-01-02", "2023-13-01")).toEqual({ error: 'eval_builtin_error: parsing time "2023-13-01": month out of range' });
  });
});
