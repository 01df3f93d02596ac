// The batch journal: the file an eval_batch's results come through. The engine creates it empty
// in the agent's private work dir before the request; the agent appends one JSON line per
// finished element (agent_core.ml, eval_batch) and the engine reads what is new — while the batch
// runs (for progress), when the answer comes, and when the agent has died mid-batch (so the
// elements that finished are reported and their phrases logged before the log is replayed).
// Compared with a message per element on the agent's channel this costs the agent one write to
// a file and the engine nothing per element: no wake-up, no event to dispatch.
import { closeSync, openSync, readSync } from 'node:fs';
import type { AgentReply } from './agent-process.js';

const NEWLINE = 0x0a;

export class BatchJournal {
  private readonly fd: number;
  /** Bytes read from the file that do not end a line yet (a record being written). */
  private partial: Buffer = Buffer.alloc(0);
  private chunk = Buffer.allocUnsafe(64 * 1024);

  /** Create (or empty) the journal at `path` and open it for reading. */
  constructor(readonly path: string) {
    closeSync(openSync(path, 'w', 0o600));
    this.fd = openSync(path, 'r');
  }

  /**
   * The records completed since the last call, in order. A line is only taken once its newline
   * is there, so a record the agent is still writing (or was writing when it died) is never
   * taken half. Lines are cut at the newline byte, which never occurs inside a UTF-8 sequence.
   */
  read(): AgentReply[] {
    const records: AgentReply[] = [];
    for (;;) {
      const n = readSync(this.fd, this.chunk, 0, this.chunk.length, null);
      if (n === 0) break;
      let data = this.partial.length > 0 ? Buffer.concat([this.partial, this.chunk.subarray(0, n)]) : this.chunk.subarray(0, n);
      let start = 0;
      for (let nl = data.indexOf(NEWLINE, start); nl >= 0; nl = data.indexOf(NEWLINE, start)) {
        const line = data.toString('utf8', start, nl);
        start = nl + 1;
        try {
          records.push(JSON.parse(line) as AgentReply);
        } catch {
          throw new Error(`the OCaml agent wrote a malformed batch result: ${line.slice(0, 200)}`);
        }
      }
      // Keep the unfinished tail; copy it, since `chunk` is reused by the next read.
      data = data.subarray(start);
      this.partial = Buffer.from(data);
      if (n < this.chunk.length) break;
      // A large record: read on with a bigger buffer.
      if (this.partial.length > this.chunk.length / 2) this.chunk = Buffer.allocUnsafe(this.chunk.length * 2);
    }
    return records;
  }

  close(): void {
    closeSync(this.fd);
  }
}
