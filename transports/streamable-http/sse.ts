/**
 * Server-Sent Events framing (WHATWG HTML § 9.2), both ways: the server writes events, the client
 * parses a byte stream into events. Only what MCP uses: `id`, `event`, `data` (one JSON-RPC
 * message per event, never multi-line since JSON.stringify escapes newlines), `retry`, comments.
 */

export interface SseEvent {
  /** The event's id, when the server gave one (it becomes the client's Last-Event-ID). */
  id?: string;
  /** The event type; MCP uses the default ("message"). */
  event?: string;
  data: string;
}

/** One event as it goes on the wire. `data` must hold no CR/LF (a JSON text from JSON.stringify holds none). */
export function encodeSseEvent(data: string, id?: string, retryMs?: number): string {
  let out = '';
  if (id !== undefined) out += `id: ${id}\n`;
  if (retryMs !== undefined) out += `retry: ${retryMs}\n`;
  return `${out}data: ${data}\n\n`;
}

/**
 * An incremental SSE parser: feed it decoded text as it arrives, it calls `onEvent` per event and
 * `onRetry` for each valid `retry` field. Lines may end in CRLF, LF or CR, split anywhere between
 * chunks. `maxEventBytes` bounds what one event may buffer: a server that never ends its event
 * cannot make the client buffer without limit.
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private dataLength = 0;
  private eventType: string | undefined;
  private eventId: string | undefined;
  private sawCr = false;

  constructor(
    private readonly onEvent: (event: SseEvent) => void,
    private readonly onRetry: (ms: number) => void = () => {},
    private readonly maxEventBytes = 32 * 1024 * 1024,
  ) {}

  /** The id of the last event that carried one (what a reconnection sends as Last-Event-ID). */
  lastEventId: string | undefined;

  push(chunk: string): void {
    let text = chunk;
    // A CR at the end of the previous chunk may be the first half of a CRLF.
    if (this.sawCr && text.startsWith('\n')) text = text.slice(1);
    this.sawCr = false;
    this.buffer += text;
    let start = 0;
    for (;;) {
      const cr = this.buffer.indexOf('\r', start);
      const lf = this.buffer.indexOf('\n', start);
      if (cr < 0 && lf < 0) break;
      let end: number;
      let next: number;
      if (cr >= 0 && (lf < 0 || cr < lf)) {
        end = cr;
        if (cr + 1 === this.buffer.length) {
          this.sawCr = true;
          next = cr + 1;
        } else next = this.buffer[cr + 1] === '\n' ? cr + 2 : cr + 1;
      } else {
        end = lf;
        next = lf + 1;
      }
      this.line(this.buffer.slice(start, end));
      start = next;
    }
    this.buffer = this.buffer.slice(start);
    if (this.buffer.length + this.dataLength > this.maxEventBytes) {
      throw new Error(`an SSE event exceeds ${this.maxEventBytes} bytes`);
    }
  }

  private line(line: string): void {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.startsWith(':')) return; // a comment (keep-alive)
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        this.dataLength += value.length;
        if (this.dataLength > this.maxEventBytes) throw new Error(`an SSE event exceeds ${this.maxEventBytes} bytes`);
        break;
      case 'event':
        this.eventType = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.eventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.onRetry(Number(value));
        break;
      default:
        break; // unknown fields are ignored, as the standard says
    }
  }

  private dispatch(): void {
    const id = this.eventId;
    if (id !== undefined) this.lastEventId = id;
    const event: SseEvent = { data: this.data.join('\n') };
    if (id !== undefined) event.id = id;
    if (this.eventType !== undefined) event.event = this.eventType;
    const hadData = this.data.length > 0;
    this.data = [];
    this.dataLength = 0;
    this.eventType = undefined;
    this.eventId = undefined;
    // An event with an id but no data still moves Last-Event-ID (a priming event) and is reported.
    if (hadData || id !== undefined) this.onEvent(event);
  }
}
