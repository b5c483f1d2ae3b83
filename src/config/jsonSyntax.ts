// Where a JSON text goes wrong, said without quoting it: the line, the column and what was expected.
// JSON.parse's own message quotes the text around the error ("Unexpected token 'a', "…ghp_abc…" is not
// valid JSON") — a token pasted without quotes, or a line of another file the path points to — and a
// refusal that reaches an HTTP body, a client or a log must not carry it. A scan of RFC 8259's grammar,
// linear in the text, run only once JSON.parse has refused it.

export interface JsonSyntaxError {
  /** 1-based. */
  readonly line: number;
  /** 1-based, in UTF-16 code units as editors count them. */
  readonly column: number;
  readonly problem: string;
}

class Stop extends Error {
  constructor(
    readonly at: number,
    readonly problem: string,
  ) {
    super(problem);
  }
}

const WS = new Set([' ', '\t', '\n', '\r']);
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const HEX = /^[0-9a-fA-F]{4}$/;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

function scan(t: string): void {
  let i = 0;
  const ws = () => {
    while (i < t.length && WS.has(t[i]!)) i++;
  };
  const expect = (what: string): never => {
    throw new Stop(i, i >= t.length ? `the text ends where ${what} was expected` : `expected ${what}`);
  };
  const string = (): void => {
    i++; // the opening quote
    for (;;) {
      if (i >= t.length) throw new Stop(i, 'a string is not closed');
      const c = t.charCodeAt(i);
      if (c === 0x22) return void i++;
      if (c < 0x20) throw new Stop(i, 'a control character inside a string (write it as an escape)');
      if (c === 0x5c) {
        const e = t[i + 1];
        if (e === 'u') {
          if (!HEX.test(t.slice(i + 2, i + 6))) throw new Stop(i, 'a \\u escape needs four hex digits');
          i += 6;
        } else if (e !== undefined && ESCAPES.has(e)) i += 2;
        else throw new Stop(i, 'an invalid escape inside a string');
      } else i++;
    }
  };
  const value = (depth: number): void => {
    if (depth > 512) throw new Stop(i, 'nested more than 512 levels deep');
    ws();
    const c = t[i];
    if (c === '{') {
      i++;
      ws();
      if (t[i] === '}') return void i++;
      for (;;) {
        ws();
        if (t[i] !== '"') expect('a property name in double quotes');
        string();
        ws();
        if (t[i] !== ':') expect("':' after a property name");
        i++;
        value(depth + 1);
        ws();
        if (t[i] === '}') return void i++;
        if (t[i] !== ',') expect("',' or '}' after a property's value");
        i++;
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (t[i] === ']') return void i++;
      for (;;) {
        value(depth + 1);
        ws();
        if (t[i] === ']') return void i++;
        if (t[i] !== ',') expect("',' or ']' after an array element");
        i++;
      }
    }
    if (c === '"') return string();
    for (const word of ['true', 'false', 'null'])
      if (t.startsWith(word, i)) {
        i += word.length;
        return;
      }
    NUMBER.lastIndex = i;
    if (c !== undefined && /[-0-9]/.test(c) && NUMBER.test(t)) {
      i = NUMBER.lastIndex;
      return;
    }
    expect('a value (an object, array, string, number, true, false or null)');
  };
  value(0);
  ws();
  if (i < t.length) throw new Stop(i, 'more text after the JSON value');
}

/** Where `text` stops being JSON; undefined when it is JSON. */
export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  try {
    scan(text);
    return undefined;
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    let line = 1;
    let start = 0;
    for (let j = text.indexOf('\n'); j !== -1 && j < e.at; j = text.indexOf('\n', j + 1)) {
      line++;
      start = j + 1;
    }
    return { line, column: e.at - start + 1, problem: e.problem };
  }
}
