// Arithmetic builtins (OPA topdown/arithmetic.go semantics): ints exact (big on
// overflow), floats as f64; `minus` is also set difference.
import { mkInt, mkFloat, mkSet, mkBig, numRepr, intVal, floatVal, bigPtr, bigLen, colLen, setGet, arrPush, N_INT, N_FLOAT, N_BIG } from "../value";
import { numAdd, numSub, numMul, toF64, toI64, okInt, isIntegral } from "../number";
import { setHas } from "../collections";
import { typeError, builtinError } from "../errors";
import { isNum, isSet } from "./util";

export function opa_arith_plus(a: usize, b: usize): usize {
  if (!isNum(a)) return typeError("plus", 1, "number", a);
  if (!isNum(b)) return typeError("plus", 2, "number", b);
  return numAdd(a, b);
}

export function opa_arith_minus(a: usize, b: usize): usize {
  if (isNum(a) && isNum(b)) return numSub(a, b);
  if (isSet(a) && isSet(b)) {
    const r = mkSet(colLen(a));
    const n = colLen(a);
    for (let i = 0; i < n; i++) {
      const x = setGet(a, i);
      if (!setHas(b, x)) arrPush(r, x); // stays sorted
    }
    return r;
  }
  if (!isNum(a) && !isSet(a)) return typeError("minus", 1, "one of {number, set}", a);
  if (isNum(a)) return typeError("minus", 2, "number", b);
  return typeError("minus", 2, "set", b);
}

export function opa_arith_multiply(a: usize, b: usize): usize {
  if (!isNum(a)) return typeError("mul", 1, "number", a);
  if (!isNum(b)) return typeError("mul", 2, "number", b);
  return numMul(a, b);
}

export function opa_arith_divide(a: usize, b: usize): usize {
  if (!isNum(a)) return typeError("div", 1, "number", a);
  if (!isNum(b)) return typeError("div", 2, "number", b);
  if (toF64(b) == 0) return builtinError("div", "divide by zero");
  if (numRepr(a) == N_INT && numRepr(b) == N_INT) {
    const x = intVal(a), y = intVal(b);
    if (!(x == i64.MIN_VALUE && y == -1) && x % y == 0) return mkInt(x / y);
  }
  return mkFloat(toF64(a) / toF64(b));
}

export function opa_arith_rem(a: usize, b: usize): usize {
  if (!isNum(a)) return typeError("rem", 1, "number", a);
  if (!isNum(b)) return typeError("rem", 2, "number", b);
  if (numRepr(a) == N_FLOAT || numRepr(b) == N_FLOAT) {
    if (!isIntegral(a) || !isIntegral(b)) return builtinError("rem", "modulo on floating-point number");
  }
  const x = toI64(a);
  if (!okInt) return builtinError("rem", "modulo on floating-point number");
  const y = toI64(b);
  if (!okInt) return builtinError("rem", "modulo on floating-point number");
  if (y == 0) return builtinError("rem", "modulo by zero");
  if (y == -1) return mkInt(0);
  return mkInt(x % y);
}

export function opa_arith_abs(a: usize): usize {
  if (!isNum(a)) return typeError("abs", 1, "number", a);
  const r = numRepr(a);
  if (r == N_INT) {
    const x = intVal(a);
    return x >= 0 ? a : x == i64.MIN_VALUE ? numSub(mkInt(0), a) : mkInt(-x);
  }
  if (r == N_FLOAT) return mkFloat(Math.abs(floatVal(a)));
  if (load<u8>(bigPtr(a)) == 45) return mkBig(bigPtr(a) + 1, bigLen(a) - 1);
  return a;
}

function intOrFloat(f: f64): usize {
  if (Math.abs(f) < 9.2e18) return mkInt(<i64>f);
  return mkFloat(f);
}

export function opa_arith_round(a: usize): usize {
  if (!isNum(a)) return typeError("round", 1, "number", a);
  if (numRepr(a) != N_FLOAT) return a;
  const f = floatVal(a);
  // half away from zero, like Go's math.Round
  const t = Math.trunc(f);
  const r = Math.abs(f - t) >= 0.5 ? t + (f < 0 ? -1 : 1) : t;
  return intOrFloat(r);
}

export function opa_arith_ceil(a: usize): usize {
  if (!isNum(a)) return typeError("ceil", 1, "number", a);
  if (numRepr(a) != N_FLOAT) return a;
  return intOrFloat(Math.ceil(floatVal(a)));
}

export function opa_arith_floor(a: usize): usize {
  if (!isNum(a)) return typeError("floor", 1, "number", a);
  if (numRepr(a) != N_FLOAT) return a;
  return intOrFloat(Math.floor(floatVal(a)));
}

