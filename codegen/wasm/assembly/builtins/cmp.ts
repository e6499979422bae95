// Comparison builtins: always defined, any two values (OPA's total order).
import { mkBool } from "../value";
import { compare, equal } from "../compare";

export function opa_cmp_eq(a: usize, b: usize): usize { return a == 0 || b == 0 ? 0 : mkBool(equal(a, b)); }
export function opa_cmp_neq(a: usize, b: usize): usize { return a == 0 || b == 0 ? 0 : mkBool(!equal(a, b)); }
export function opa_cmp_lt(a: usize, b: usize): usize { return a == 0 || b == 0 ? 0 : mkBool(compare(a, b) < 0); }
export function opa_cmp_lte(a: usize, b: usize): usize { return a == 0 || b == 0 ? 0 : mkBool(compare(a, b) <= 0); }
export function opa_cmp_gt(a: usize, b: usize): usize { return a == 0 || b == 0 ? 0 : mkBool(compare(a, b) > 0); }
export function opa_cmp_gte(a: usize, b: usize): usize { return a == 0 || b == 0 ? 0 : mkBool(compare(a, b) >= 0); }
