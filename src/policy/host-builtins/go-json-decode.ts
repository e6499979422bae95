/**
 * JSON text checked as OPA's json.unmarshal reads it (util.UnmarshalJSON: Go's
 * json.Decoder for the first value, then one `Token()` for anything after it), with
 * Go's error texts: `invalid character 'x' looking for beginning of value`,
 * `unexpected EOF`, `EOF`, and OPA's `error: invalid character '2' after top-level
 * value`. Works on the UTF-8 bytes, as Go's scanner does, so a character in an error
 * is the offending byte as Go quotes it.
 */

export class GoJsonError extends Error {}

/** Go's quoteChar: the byte as a rune, strconv.Quote'd between single quotes. */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return "'\"'";
  return `'${goQuoteRune(c)}'`;
}

function goQuoteRune(c: number): string {
  switch (c) {
    case 0x07:
      return "\\a";
    case 0x08:
      return "\\b";
    case 0x0c:
      return "\\f";
    case 0x0a:
      return "\\n";
    case 0x0d:
      return "\\r";
    case 0x09:
      return "\\t";
    case 0x0b:
      return "\\v";
    case 0x5c:
      return "\\\\";
  }
  if (c < 0x20 || c === 0x7f) return `\\x${c.toString(16).padStart(2, "0")}`;
  // Latin-1 runes: C1 controls, NBSP and the soft hyphen are not printable in Go.
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `\\u00${c.toString(16).padStart(2, "0")}`;
  return String.fromCharCode(c);
}

const isSpace = (c: number | undefined): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number | undefined): boolean => c !== undefined && c >= 0x30 && c <= 0x39;
const isHex = (c: number | undefined): boolean => c !== undefined && (isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46));

/** The input ended inside a value (the decoder then reports io.ErrUnexpectedEOF). */
class UnexpectedEnd extends Error {}

/** One value scanned by Go's state machine; `pos` ends just after it. */
class Scanner {
  pos: number;
  constructor(
    private readonly b: Uint8Array,
    start: number,
  ) {
    this.pos = start;
  }

  private peek(): number {
    const c = this.b[this.pos];
    if (c === undefined) throw new UnexpectedEnd();
    return c;
  }

  private fail(c: number, context: string): never {
    throw new GoJsonError(`invalid character ${quoteChar(c)} ${context}`);
  }

  private skipSpace(): void {
    while (isSpace(this.b[this.pos])) this.pos++;
  }

  value(): void {
    this.skipSpace();
    const c = this.peek();
    if (c === 0x7b) return this.object();
    if (c === 0x5b) return this.array();
    if (c === 0x22) return this.string();
    if (c === 0x2d || isDigit(c)) return this.number();
    if (c === 0x74) return this.literal("true");
    if (c === 0x66) return this.literal("false");
    if (c === 0x6e) return this.literal("null");
    this.fail(c, "looking for beginning of value");
  }

  private object(): void {
    this.pos++;
    this.skipSpace();
    if (this.peek() === 0x7d) {
      this.pos++;
      return;
    }
    for (;;) {
      this.skipSpace();
      const k = this.peek();
      if (k !== 0x22) this.fail(k, "looking for beginning of object key string");
      this.string();
      this.skipSpace();
      const colon = this.peek();
      if (colon !== 0x3a) this.fail(colon, "after object key");
      this.pos++;
      this.value();
      this.skipSpace();
      const next = this.peek();
      this.pos++;
      if (next === 0x7d) return;
      if (next !== 0x2c) this.fail(next, "after object key:value pair");
    }
  }

  private array(): void {
    this.pos++;
    this.skipSpace();
    if (this.peek() === 0x5d) {
      this.pos++;
      return;
    }
    for (;;) {
      this.value();
      this.skipSpace();
      const next = this.peek();
      this.pos++;
      if (next === 0x5d) return;
      if (next !== 0x2c) this.fail(next, "after array element");
    }
  }

  private string(): void {
    this.pos++;
    for (;;) {
      const c = this.peek();
      this.pos++;
      if (c === 0x22) return;
      if (c === 0x5c) {
        const e = this.peek();
        this.pos++;
        if (e === 0x75) {
          for (let i = 0; i < 4; i++) {
            const h = this.peek();
            if (!isHex(h)) this.fail(h, "in \\u hexadecimal character escape");
            this.pos++;
          }
        } else if (!"bfnrt\\/\"".includes(String.fromCharCode(e))) this.fail(e, "in string escape code");
      } else if (c < 0x20) this.fail(c, "in string literal");
    }
  }

  /** A number ends at the first byte that cannot continue it; at the input's end it is complete. */
  private number(): void {
    const b = this.b;
    if (b[this.pos] === 0x2d) {
      this.pos++;
      const c = this.peek();
      if (!isDigit(c)) this.fail(c, "in numeric literal");
    }
    if (b[this.pos] === 0x30) this.pos++;
    else while (isDigit(b[this.pos])) this.pos++;
    if (b[this.pos] === 0x2e) {
      this.pos++;
      const c = this.peek();
      if (!isDigit(c)) this.fail(c, "after decimal point in numeric literal");
      while (isDigit(b[this.pos])) this.pos++;
    }
    if (b[this.pos] === 0x65 || b[this.pos] === 0x45) {
      this.pos++;
      if (b[this.pos] === 0x2b || b[this.pos] === 0x2d) this.pos++;
      const c = this.peek();
      if (!isDigit(c)) this.fail(c, "in exponent of numeric literal");
      while (isDigit(b[this.pos])) this.pos++;
    }
  }

  private literal(word: string): void {
    this.pos++;
    for (let i = 1; i < word.length; i++) {
      const c = this.peek();
      if (c !== word.charCodeAt(i)) this.fail(c, `in literal ${word} (expecting '${word[i]}')`);
      this.pos++;
    }
  }
}

/** Decoder.Decode of one value from `start`: its end, or Go's error. */
function decodeOne(b: Uint8Array, start: number): number {
  const s = new Scanner(b, start);
  try {
    s.value();
  } catch (e) {
    if (!(e instanceof UnexpectedEnd)) throw e;
    let i = start;
    while (isSpace(b[i])) i++;
    throw new GoJsonError(i < b.length ? "unexpected EOF" : "EOF");
  }
  return s.pos;
}

/** The text of a scalar token as Go's `%s` prints it (strings unescaped, booleans as `%!s(bool=true)`). */
function tokenText(b: Uint8Array, start: number, end: number): string | null {
  const text = new TextDecoder().decode(b.subarray(start, end));
  if (text === "null") return null;
  if (text === "true" || text === "false") return `%!s(bool=${text})`;
  if (b[start] === 0x22) return JSON.parse(text) as string;
  return text;
}

/**
 * Checks `text` as OPA's json.unmarshal does and returns the UTF-8 bytes of the value
 * it decodes (the first one); throws GoJsonError with Go's/OPA's text.
 */
export function goJsonUnmarshalBytes(text: string): Uint8Array {
  const b = new TextEncoder().encode(text);
  let start = 0;
  while (isSpace(b[start])) start++;
  const end = decodeOne(b, start);
  // decoder.Token(): whatever follows the value.
  let i = end;
  while (isSpace(b[i])) i++;
  const c = b[i];
  if (c === undefined) return b.subarray(start, end);
  if (c === 0x5b || c === 0x7b) throw new GoJsonError(`error: invalid character '${String.fromCharCode(c)}' after top-level value`);
  if (c === 0x5d || c === 0x7d || c === 0x3a || c === 0x2c) throw new GoJsonError(`invalid character ${quoteChar(c)} looking for beginning of value`);
  let j = i;
  while (isSpace(b[j])) j++;
  const tokEnd = decodeOne(b, j);
  const tok = tokenText(b, j, tokEnd);
  // A trailing `null` decodes to a nil token, which OPA lets pass.
  if (tok === null) return b.subarray(start, end);
  throw new GoJsonError(`error: invalid character '${tok}' after top-level value`);
}
