// Run-time errors. Every abort message reads `<file>:<row>:<col>: <code>: <msg>`.
import { opa_abort } from "./env";
import { bBegin, bByte, bBytes, bLit, bEnd } from "./memory";
import { tag, T_NULL, T_BOOLEAN, T_NUMBER, T_STRING, T_ARRAY, T_OBJECT, T_SET } from "./value";
import { writeI64 } from "./number";
import { writeRego } from "./json-print";

/** Strict builtin errors: set to 1 by generated code (RUNTIME-API.md, Errors). */
export let tg_strict_builtin_errors: i32 = 0;

let locFile: usize = 0;
let locRow: i32 = 0;
let locCol: i32 = 0;

export function setLocation(file: usize, row: i32, col: i32): void {
  locFile = file;
  locRow = row;
  locCol = col;
}

/** NUL-terminated "<file>:<row>:<col>" of the last tg_set_location, or 0 when none (for host builtins' errors). */
export function currentLocation(): usize {
  if (locFile == 0) return 0;
  bBegin();
  bBytes(locFile, cstrLen(locFile));
  bByte(58); writeI64(locRow); bByte(58); writeI64(locCol);
  bByte(0);
  return bEnd();
}

function cstrLen(p: usize): usize {
  let n: usize = 0;
  while (load<u8>(p + n) != 0) n++;
  return n;
}

function writeLocation(file: usize, row: i32, col: i32): void {
  if (file != 0) bBytes(file, cstrLen(file)); else bLit("unknown");
  bByte(58); writeI64(row); bByte(58); writeI64(col); bByte(58); bByte(32);
}

function raise(): void {
  bByte(0);
  opa_abort(bEnd());
  unreachable();
}

/** opa_runtime_error: `msg` already starts with the error code. */
export function runtimeError(file: usize, row: i32, col: i32, msg: usize): void {
  bBegin();
  writeLocation(file, row, col);
  if (msg != 0) bBytes(msg, cstrLen(msg));
  raise();
}

/** Aborts with an internal error message (an AssemblyScript literal). */
export function internalError(msg: string): void {
  bBegin();
  bLit("internal error: ");
  bLit(msg);
  raise();
}

export function typeName(v: usize): string {
  if (v == 0) return "undefined";
  switch (tag(v)) {
    case T_NULL: return "null";
    case T_BOOLEAN: return "boolean";
    case T_NUMBER: return "number";
    case T_STRING: return "string";
    case T_ARRAY: return "array";
    case T_OBJECT: return "object";
    case T_SET: return "set";
  }
  return "unknown";
}

/** Starts a message at the last tg_set_location: `<file>:<row>:<col>: <code><name>`. */
@inline function beginError(code: string, name: string): void {
  bBegin();
  writeLocation(locFile, locRow, locCol);
  bLit(code);
  bLit(name);
}

/** Starts `eval_type_error: <name>: operand <operand>`. */
@inline function beginOperandError(name: string, operand: i32): void {
  beginError("eval_type_error: ", name);
  bLit(": operand ");
  writeI64(operand);
}

/** ` must be <want> but got <type of got>`. */
@inline function writeMustBe(want: string, got: usize): void {
  bLit(" must be ");
  bLit(want);
  bLit(" but got ");
  bLit(typeName(got));
}

/** Aborts with `<code><name>: <msg>` at the last tg_set_location. */
@inline function raiseMessage(code: string, name: string, msg: string): void {
  beginError(code, name);
  bLit(": ");
  bLit(msg);
  raise();
}

/**
 * Operand type error: undefined (0) unless strict, then
 * `eval_type_error: <name>: operand <i> must be <want> but got <type>`.
 */
export function typeError(name: string, operand: i32, want: string, got: usize): usize {
  if (tg_strict_builtin_errors == 0) return 0;
  beginOperandError(name, operand);
  writeMustBe(want, got);
  raise();
  return 0;
}

/** OPA's IntOperand/BigIntOperand text for a number that is not an integer. */
export function notInteger(name: string, operand: i32): usize {
  if (tg_strict_builtin_errors == 0) return 0;
  beginOperandError(name, operand);
  bLit(" must be integer number but got floating-point number");
  raise();
  return 0;
}

/** `... operand <i> must be <want> but got <container type> containing <element type>`. */
export function typeErrorContaining(name: string, operand: i32, want: string, container: usize, elem: usize): usize {
  if (tg_strict_builtin_errors == 0) return 0;
  beginOperandError(name, operand);
  writeMustBe(want, container);
  bLit(" containing ");
  bLit(typeName(elem));
  raise();
  return 0;
}

/** Type error with a free-form message: `eval_type_error: <name>: <msg>`. */
export function typeErrorMsg(name: string, msg: string): usize {
  if (tg_strict_builtin_errors == 0) return 0;
  raiseMessage("eval_type_error: ", name, msg);
  return 0;
}

/** Builtin failure naming a value, as Go's errors do: `eval_builtin_error: <name>: <prefix><bytes><suffix>`. */
export function builtinErrorWith(name: string, prefix: string, p: usize, n: usize, suffix: string): usize {
  if (tg_strict_builtin_errors == 0) return 0;
  beginError("eval_builtin_error: ", name);
  bLit(": ");
  bLit(prefix);
  bBytes(p, n);
  bLit(suffix);
  raise();
  return 0;
}

/**
 * `eval_type_error: <name>: operand <operand> <prefix><named in Rego syntax><middle>`, as
 * OPA's NewOperandErr formats an ast value with %s/%v (a string comes out quoted). When
 * `index` is not negative, the wrapped StringOperand error follows:
 * `operand <index> must be string but got <type of got>`, preceded by
 * ` at index <index>: ` when `atIndex`.
 */
export function operandErrorNaming(name: string, operand: i32, prefix: string, named: usize, middle: string, index: i32, got: usize, atIndex: bool = false): usize {
  if (tg_strict_builtin_errors == 0) return 0;
  beginOperandError(name, operand);
  bByte(32);
  bLit(prefix);
  writeRego(named);
  bLit(middle);
  if (atIndex) { bLit(" at index "); writeI64(index); bLit(": "); }
  if (index >= 0) {
    bLit("operand ");
    writeI64(index);
    bLit(" must be string but got ");
    bLit(typeName(got));
  }
  raise();
  return 0;
}

/** Builtin failure: undefined unless strict, then `eval_builtin_error: <name>: <msg>`. */
export function builtinError(name: string, msg: string): usize {
  if (tg_strict_builtin_errors == 0) return 0;
  raiseMessage("eval_builtin_error: ", name, msg);
  return 0;
}

/** Target of asc's `--use abort=`: std library assertions end here, not in env.abort. */
export function asAbort(message: string | null, file: string | null, line: u32, column: u32): void {
  bBegin();
  bLit("internal error: runtime assertion");
  raise();
}
