/**
 * A push parser for a JSON object whose large values are arrays of small rows: it walks the
 * object's skeleton byte by byte and hands each array element (and each other top-level value)
 * to `JSON.parse` on its own, so a document of tens of megabytes is read with one row in memory
 * at a time. Chunks may split anything anywhere. Byte offsets are counted from the first byte fed.
 */

export interface ScanHandler {
  /** A top-level value that is not an array, parsed. */
  value(key: string, value: unknown): void;
  /** A top-level array begins; `offset` is the byte of its `[`. */
  tableStart(key: string, offset: number): void;
  /** One element of a top-level array, parsed; `index` counts from 0. */
  row(key: string, index: number, value: unknown): void;
  /** The array ended after `rows` elements; `endOffset` is just past its `]`. */
  tableEnd(key: string, rows: number, endOffset: number): void;
}

/** Malformed JSON (or a row over the size or depth limit): the message says where, never what. */
export class JsonScanError extends Error {}

/**
 * Deepest nesting of objects and arrays accepted inside one row or value. A backup's rows nest a
 * few levels; the bound keeps every later step that walks a value recursively (validation,
 * JSON.stringify when writing) clear of the stack limit.
 */
export const MAX_VALUE_DEPTH = 64;

const enum State {
  DocStart,
  FirstKey,
  Key,
  Colon,
  Value,
  FirstElement,
  Element,
  AfterElement,
  AfterValue,
  Done,
  Capture,
}

const enum Target {
  Key,
  Value,
  Row,
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
/** Characters a number, true, false or null may start with. */
const startsScalar = (c: number) =>
  c === 0x2d || (c >= 0x30 && c <= 0x39) || c === 0x74 || c === 0x66 || c === 0x6e;

export class JsonTableScanner {
  private state = State.DocStart;
  /** Bytes fed before the current chunk. */
  private base = 0;
  private key = '';
  private readonly keys = new Set<string>();
  private rows = 0;

  // The value being captured.
  private target = Target.Key;
  private parts: Buffer[] = [];
  private partBytes = 0;
  private start = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private scalar = false;

  constructor(
    private readonly handler: ScanHandler,
    /** Largest single row or value accepted, in bytes. */
    private readonly maxValueBytes = 8 * 1024 * 1024,
  ) {}

  /** Bytes consumed so far. */
  get offset(): number {
    return this.base;
  }

  feed(chunk: Buffer): void {
    const length = chunk.length;
    let i = 0;
    while (i < length) {
      if (this.state === State.Capture) {
        const end = this.scanCapture(chunk, i);
        if (end < 0) break;
        this.finishCapture(chunk, end);
        i = end;
        continue;
      }
      const c = chunk[i];
      if (!isSpace(c)) this.step(c, i);
      i++;
    }
    if (this.state === State.Capture) {
      // The value goes on in the next chunk: keep what this one holds of it.
      this.keepPart(chunk.subarray(this.start));
      this.start = 0;
    }
    this.base += length;
  }

  /** The input is complete: anything unfinished is an error. */
  end(): void {
    if (this.state !== State.Done) throw this.error('unexpected end of the document');
  }

  private step(c: number, i: number): void {
    switch (this.state) {
      case State.DocStart:
        if (c !== OPEN_BRACE) throw this.error('the document must be a JSON object', i);
        this.state = State.FirstKey;
        return;
      case State.FirstKey:
        if (c === CLOSE_BRACE) {
          this.state = State.Done;
          return;
        }
        return this.beginKey(c, i);
      case State.Key:
        return this.beginKey(c, i);
      case State.Colon:
        if (c !== COLON) throw this.error('expected ":"', i);
        this.state = State.Value;
        return;
      case State.Value:
        if (c === OPEN_BRACKET) {
          this.rows = 0;
          this.handler.tableStart(this.key, this.base + i);
          this.state = State.FirstElement;
          return;
        }
        return this.beginCapture(Target.Value, c, i);
      case State.FirstElement:
        if (c === CLOSE_BRACKET) return this.endTable(i);
        return this.beginCapture(Target.Row, c, i);
      case State.Element:
        return this.beginCapture(Target.Row, c, i);
      case State.AfterElement:
        if (c === COMMA) {
          this.state = State.Element;
          return;
        }
        if (c === CLOSE_BRACKET) return this.endTable(i);
        throw this.error(`expected "," or "]" after row ${this.rows - 1} of ${this.key}`, i);
      case State.AfterValue:
        if (c === COMMA) {
          this.state = State.Key;
          return;
        }
        if (c === CLOSE_BRACE) {
          this.state = State.Done;
          return;
        }
        throw this.error('expected "," or "}"', i);
      case State.Done:
        throw this.error('unexpected data after the end of the document', i);
      case State.Capture:
        return;
    }
  }

  private beginKey(c: number, i: number): void {
    if (c !== QUOTE) throw this.error('expected a key in double quotes', i);
    this.beginCapture(Target.Key, c, i);
  }

  private endTable(i: number): void {
    this.handler.tableEnd(this.key, this.rows, this.base + i + 1);
    this.state = State.AfterValue;
  }

  private beginCapture(target: Target, c: number, i: number): void {
    this.target = target;
    this.parts = [];
    this.partBytes = 0;
    this.start = i;
    this.escaped = false;
    this.scalar = false;
    if (c === QUOTE) {
      this.inString = true;
      this.depth = 0;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      this.inString = false;
      this.depth = 1;
    } else if (startsScalar(c)) {
      this.inString = false;
      this.depth = 0;
      this.scalar = true;
    } else {
      throw this.error(
        target === Target.Row ? `row ${this.rows} of ${this.key}: expected a value` : 'expected a value',
        i,
      );
    }
    this.state = State.Capture;
  }

  /** The index just past the captured value, or -1 when it goes on past this chunk. */
  private scanCapture(chunk: Buffer, from: number): number {
    let i = from;
    const length = chunk.length;
    if (this.scalar) {
      for (; i < length; i++) {
        const c = chunk[i];
        if (isSpace(c) || c === COMMA || c === CLOSE_BRACKET || c === CLOSE_BRACE) return i;
      }
      return -1;
    }
    let depth = this.depth;
    let inString = this.inString;
    let escaped = this.escaped;
    for (; i < length; i++) {
      const c = chunk[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) {
          inString = false;
          if (depth === 0) return i + 1;
        }
      } else if (c === QUOTE) inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (++depth > MAX_VALUE_DEPTH) throw this.tooDeep();
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    return -1;
  }

  private keepPart(part: Buffer): void {
    this.partBytes += part.length;
    if (this.partBytes > this.maxValueBytes) throw this.tooLarge();
    // Copy: the caller may reuse the chunk's memory.
    this.parts.push(Buffer.from(part));
  }

  private finishCapture(chunk: Buffer, end: number): void {
    const tail = chunk.subarray(this.start, end);
    if (this.partBytes + tail.length > this.maxValueBytes) throw this.tooLarge();
    const bytes = this.parts.length === 0 ? tail : Buffer.concat([...this.parts, tail]);
    this.parts = [];
    this.partBytes = 0;
    const at = this.base + end;
    let parsed: unknown;
    try {
      parsed = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new JsonScanError(
        this.target === Target.Row
          ? `row ${this.rows} of ${this.key} is not valid JSON (ending at byte ${at})`
          : `malformed JSON before byte ${at}`,
      );
    }
    switch (this.target) {
      case Target.Key: {
        const key = parsed as string;
        if (this.keys.has(key)) throw new JsonScanError(`the document names "${key}" twice`);
        this.keys.add(key);
        this.key = key;
        this.state = State.Colon;
        return;
      }
      case Target.Value:
        this.state = State.AfterValue;
        this.handler.value(this.key, parsed);
        return;
      case Target.Row:
        this.state = State.AfterElement;
        this.handler.row(this.key, this.rows++, parsed);
        return;
    }
  }

  private tooLarge(): JsonScanError {
    return new JsonScanError(
      this.target === Target.Row
        ? `row ${this.rows} of ${this.key} is larger than ${this.maxValueBytes} bytes`
        : `a value is larger than ${this.maxValueBytes} bytes`,
    );
  }

  private tooDeep(): JsonScanError {
    return new JsonScanError(
      this.target === Target.Row
        ? `row ${this.rows} of ${this.key} is nested deeper than ${MAX_VALUE_DEPTH} levels`
        : `a value is nested deeper than ${MAX_VALUE_DEPTH} levels`,
    );
  }

  private error(message: string, index?: number): JsonScanError {
    const at = index === undefined ? this.base : this.base + index;
    return new JsonScanError(`malformed JSON at byte ${at}: ${message}`);
  }
}
