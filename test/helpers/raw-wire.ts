// Talk to a server process line by line, below any MCP client: for malformed-input and
// wire-level tests. Responses are collected in arrival order.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export class RawWire {
  readonly received: any[] = [];
  private buffer = '';
  private waiters: Array<() => void> = [];
  stderr = '';

  constructor(readonly child: ChildProcess) {
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      this.buffer += chunk;
      for (let nl = this.buffer.indexOf('\n'); nl >= 0; nl = this.buffer.indexOf('\n')) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        this.received.push(JSON.parse(line));
      }
      for (const w of this.waiters.splice(0)) w();
    });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (c: string) => (this.stderr += c));
  }

  static spawn(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): RawWire {
    return new RawWire(spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env }));
  }

  write(data: string | Buffer): void {
    this.child.stdin!.write(data);
  }

  send(message: unknown): void {
    this.write(`${JSON.stringify(message)}\n`);
  }

  /** Wait until a message matching `pred` has arrived (bounded by `timeoutMs`); return it. */
  async waitFor(pred: (m: any) => boolean, timeoutMs = 10_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(pred);
      if (found) return found;
      if (this.child.exitCode !== null) throw new Error(`server exited (${this.child.exitCode}) while waiting; stderr: ${this.stderr}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for a message; received: ${JSON.stringify(this.received).slice(0, 2000)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Everything received so far, and forget it. */
  drain(): any[] {
    return this.received.splice(0);
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.stdin!.end();
    const exited = once(this.child, 'exit');
    const t = setTimeout(() => this.child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(t);
  }
}
