// json.* and base64 builtins.
import { alloc } from "../memory";
import { mkString, mkBool, strLen, strPtr, colLen, objKey, objVal, boolVal, tag, T_BOOLEAN } from "../value";
import { parseJSON } from "../json-parse";
import { jsonString, jsonStringIndented } from "../json-print";
import { typeError, builtinError, operandErrorNaming } from "../errors";
import { isStr, isObj, litString } from "./util";

export function opa_json_marshal(v: usize): usize {
  if (v == 0) return 0;
  return jsonString(v);
}

const NAME_MWO = "json.marshal_with_options";

/** json.marshal_with_options(x, {pretty, indent, prefix}): Go's MarshalIndent when pretty. */
export function tg_json_marshal_with_options(v: usize, opts: usize): usize {
  if (v == 0) return 0;
  if (!isObj(opts)) return typeError(NAME_MWO, 2, "object", opts);
  let pretty = false;
  let prettySet = false;
  let indent = litString("\t");
  let prefix = litString("");
  const n = colLen(opts);
  for (let i = 0; i < n; i++) {
    const k = objKey(opts, i);
    const x = objVal(opts, i);
    // OPA's texts (encoding.go); i is the key's index in the options' key order
    if (!isStr(k)) return operandErrorNaming(NAME_MWO, 2, "failed to stringify key ", k, "", i, k, true);
    const kp = strPtr(k), kn = strLen(k);
    if (kn == 6 && load<u32>(kp) == 0x74657270 && load<u16>(kp + 4) == 0x7974) { // "pretty"
      if (tag(x) != T_BOOLEAN) return operandErrorNaming(NAME_MWO, 2, "key ", k, " failed cast to bool", -1, x);
      pretty = boolVal(x); prettySet = true;
    } else if (kn == 6 && load<u32>(kp) == 0x65646e69 && load<u16>(kp + 4) == 0x746e) { // "indent"
      if (!isStr(x)) return operandErrorNaming(NAME_MWO, 2, "key ", k, " failed cast to string: ", i, x);
      indent = x; if (!prettySet) pretty = true;
    } else if (kn == 6 && load<u32>(kp) == 0x66657270 && load<u16>(kp + 4) == 0x7869) { // "prefix"
      if (!isStr(x)) return operandErrorNaming(NAME_MWO, 2, "key ", k, " failed cast to string: ", i, x);
      prefix = x; if (!prettySet) pretty = true;
    } else return operandErrorNaming(NAME_MWO, 2, "object contained unknown key ", k, "", -1, x);
  }
  if (!pretty) return jsonString(v);
  return jsonStringIndented(v, strPtr(prefix), strLen(prefix), strPtr(indent), strLen(indent));
}

export function opa_json_unmarshal(s: usize): usize {
  if (!isStr(s)) return typeError("json.unmarshal", 1, "string", s);
  const v = parseJSON(strPtr(s), strLen(s));
  return v != 0 ? v : builtinError("json.unmarshal", "invalid JSON");
}

export function tg_json_is_valid(s: usize): usize {
  if (s == 0) return 0;
  if (!isStr(s)) return mkBool(false);
  return mkBool(parseJSON(strPtr(s), strLen(s)) != 0);
}

const STD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

function encode(s: usize, alphabet: string, pad: bool): usize {
  const p = strPtr(s), n = strLen(s);
  const a = changetype<usize>(alphabet);
  const out = alloc(((n + 2) / 3) * 4);
  let o = out;
  let i: usize = 0;
  while (i + 3 <= n) {
    const x = (<u32>load<u8>(p + i) << 16) | (<u32>load<u8>(p + i + 1) << 8) | load<u8>(p + i + 2);
    store<u8>(o++, <u8>load<u16>(a + (((x >> 18) & 63) << 1)));
    store<u8>(o++, <u8>load<u16>(a + (((x >> 12) & 63) << 1)));
    store<u8>(o++, <u8>load<u16>(a + (((x >> 6) & 63) << 1)));
    store<u8>(o++, <u8>load<u16>(a + ((x & 63) << 1)));
    i += 3;
  }
  const rest = n - i;
  if (rest > 0) {
    let x = <u32>load<u8>(p + i) << 16;
    if (rest == 2) x |= <u32>load<u8>(p + i + 1) << 8;
    store<u8>(o++, <u8>load<u16>(a + (((x >> 18) & 63) << 1)));
    store<u8>(o++, <u8>load<u16>(a + (((x >> 12) & 63) << 1)));
    if (rest == 2) store<u8>(o++, <u8>load<u16>(a + (((x >> 6) & 63) << 1)));
    else if (pad) store<u8>(o++, 61);
    if (pad) store<u8>(o++, 61);
  }
  return mkString(out, o - out);
}

function sextet(c: u32, url: bool): i32 {
  if (c >= 65 && c <= 90) return <i32>(c - 65);
  if (c >= 97 && c <= 122) return <i32>(c - 71);
  if (c >= 48 && c <= 57) return <i32>(c + 4);
  if (c == (url ? 45 : 43)) return 62;
  if (c == (url ? 95 : 47)) return 63;
  return -1;
}

/**
 * Strict decoding (Go's base64 StdEncoding / URLEncoding; padding optional only
 * when `padOptional`). Returns 0 on invalid input; line breaks are skipped as Go does.
 */
function decode(s: usize, url: bool, padOptional: bool): usize {
  const p = strPtr(s), n = strLen(s);
  const out = alloc((n / 4) * 3 + 3);
  let o = out;
  let acc: u32 = 0;
  let bits = 0;
  let count = 0; // sextets seen
  let i: usize = 0;
  let padding = 0;
  for (; i < n; i++) {
    const c = <u32>load<u8>(p + i);
    if (c == 10 || c == 13) continue;
    if (c == 61) { padding++; continue; }
    if (padding > 0) return 0; // data after padding
    const v = sextet(c, url);
    if (v < 0) return 0;
    acc = (acc << 6) | <u32>v;
    bits += 6;
    count++;
    if (bits >= 8) { bits -= 8; store<u8>(o++, <u8>(acc >> bits)); acc &= (1 << bits) - 1; }
  }
  const rem = count % 4;
  if (rem == 1) return 0;
  if (padding > 0) {
    if (rem == 0 || padding != 4 - rem) return 0;
  } else if (rem != 0 && !padOptional) return 0;
  if (acc != 0) return 0; // non-zero trailing bits
  return mkString(out, o - out);
}

export function opa_base64_encode(s: usize): usize {
  if (!isStr(s)) return typeError("base64.encode", 1, "string", s);
  return encode(s, STD, true);
}

export function opa_base64_decode(s: usize): usize {
  if (!isStr(s)) return typeError("base64.decode", 1, "string", s);
  const r = decode(s, false, false);
  return r != 0 ? r : builtinError("base64.decode", "illegal base64 data");
}

export function opa_base64_is_valid(s: usize): usize {
  if (!isStr(s)) return typeError("base64.is_valid", 1, "string", s);
  return mkBool(decode(s, false, false) != 0);
}

export function opa_base64_url_encode(s: usize): usize {
  if (!isStr(s)) return typeError("base64url.encode", 1, "string", s);
  return encode(s, URL, true);
}

export function tg_base64_url_encode_no_pad(s: usize): usize {
  if (!isStr(s)) return typeError("base64url.encode_no_pad", 1, "string", s);
  return encode(s, URL, false);
}

export function opa_base64_url_decode(s: usize): usize {
  if (!isStr(s)) return typeError("base64url.decode", 1, "string", s);
  const r = decode(s, true, true);
  return r != 0 ? r : builtinError("base64url.decode", "illegal base64 data");
}
