// The virtual device's HTTP server: the password check, body collection with a cap enforced before
// the body is stored, raw or multipart/form-data uploads, then the route table. Anything outside
// /v1 or unknown to the table gets a bare 404 with no body, as on the firmware.
import { takeFault } from './fault-injection.js';
import { watchRestRequest } from './step-watch.js';
import http from 'node:http';
import type net from 'node:net';
import { checkParams, findCall, parseApiPath, type Answer, type RestDevice } from './rest-routes.js';
import { closeServer, listenLoopback } from '../../../../common/loopback.js';

export interface HttpServerOptions {
  device: RestDevice;
  password?: string;
  host?: string;
  port?: number;
  /** Largest request body accepted (default 4 MiB); larger bodies get 507 without being stored. */
  maxBodyBytes?: number;
  /** Called on every request (the device runs unpaced while requests come). */
  onActivity?: () => void;
}

/**
 * The first file part of a multipart/form-data body (or the first part at all), with the file name
 * its Content-Disposition gives (`filename="…"`), which the firmware keeps for the stored upload.
 */
export function firstMultipartPart(body: Buffer, contentType: string): { content: Buffer; filename?: string } | undefined {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!m) return undefined;
  const boundary = Buffer.from(`--${m[1] ?? m[2]!.trim()}`, 'latin1');
  let at = body.indexOf(boundary);
  while (at >= 0) {
    const headStart = at + boundary.length + 2; // CRLF after the boundary
    const headEnd = body.indexOf('\r\n\r\n', headStart, 'latin1');
    if (headEnd < 0) return undefined;
    const next = body.indexOf(boundary, headEnd + 4);
    if (next < 0) return undefined;
    const headers = body.toString('latin1', headStart, headEnd);
    const content = body.subarray(headEnd + 4, next - 2); // CRLF before the next boundary
    // The firmware's TempfileWriter stores every part; the runners use the first one.
    if (/content-disposition/i.test(headers)) {
      const name = /filename="([^"]*)"?/i.exec(headers)?.[1];
      return name === undefined ? { content } : { content, filename: name };
    }
    at = next;
  }
  return undefined;
}

function send(res: http.ServerResponse, a: Answer): void {
  if ('binary' in a) {
    res.writeHead(a.status, { 'Content-Type': 'application/octet-stream', 'Content-Length': a.binary.length });
    res.end(Buffer.from(a.binary.buffer, a.binary.byteOffset, a.binary.byteLength));
    return;
  }
  if (a.afterSend) res.once('finish', a.afterSend);
  const text = JSON.stringify(a.json, null, 2);
  res.writeHead(a.status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function bare404(res: http.ServerResponse): void {
  res.writeHead(404, { 'Content-Length': 0, Connection: 'close' });
  res.end();
}

export class VirtualHttpServer {
  readonly #server: http.Server;
  readonly #sockets = new Set<net.Socket>();
  port = 0;

  constructor(private readonly opts: HttpServerOptions) {
    const maxBody = opts.maxBodyBytes ?? 4 * 1024 * 1024;
    this.#server = http.createServer((req, res) => {
      void this.#handle(req, res, maxBody).catch((err: unknown) => {
        if (!res.headersSent) send(res, { status: 500, json: { errors: [`Internal error: ${(err as Error).message}`] } });
        else res.destroy();
      });
    });
    this.#server.on('connection', (s) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
    this.#server.headersTimeout = 10_000;
    this.#server.requestTimeout = 30_000;
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse, maxBody: number): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://virtual');
    this.opts.onActivity?.();
    await watchRestRequest(this.opts.device, req.method ?? 'GET', url.pathname);
    if (takeFault(this.opts.device, req, res)) return;
    if (!url.pathname.startsWith('/v1/')) {
      req.resume();
      return bare404(res);
    }
    // The firmware checks the password only for a call that exists (routes.h: `if(call && …)`):
    // an unknown route, command or method is a bare 404 with or without a password.
    const parts = parseApiPath(url.pathname);
    const call =
      parts && findCall(req.method ?? 'GET', parts.route, parts.path, parts.command, this.opts.device.family, this.opts.device.firmware);
    if (!parts || !call) {
      req.resume();
      return bare404(res);
    }
    if (this.opts.password && req.headers['x-password'] !== this.opts.password) {
      req.resume();
      return send(res, { status: 403, json: { errors: ['Forbidden.'] } });
    }
    const args = new Map<string, string>();
    for (const [k, v] of url.searchParams) args.set(k, v);
    const paramErrors = checkParams(call, args);
    // A call with a body checks its parameters after the upload (the firmware reads the attachment
    // first): an empty body is 412 even when a parameter is also wrong.
    const takesBody = call.body === true || call.jsonBody === true;
    if (paramErrors.length && !takesBody) {
      req.resume();
      return send(res, { status: 400, json: { errors: paramErrors } });
    }

    let body: Uint8Array | undefined;
    let uploadName: string | undefined;
    if (takesBody) {
      const declared = Number(req.headers['content-length'] ?? NaN);
      if (declared > maxBody) {
        // Refuse before reading: the cap is enforced before any work is done.
        res.setHeader('Connection', 'close');
        send(res, { status: 507, json: { errors: [`Attachment too large: ${declared} bytes, the limit is ${maxBody}.`] } });
        req.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      let total = 0;
      let tooBig = false;
      for await (const chunk of req as AsyncIterable<Buffer>) {
        total += chunk.length;
        if (total > maxBody) {
          tooBig = true;
          break;
        }
        chunks.push(chunk);
      }
      if (tooBig) {
        res.setHeader('Connection', 'close');
        send(res, { status: 507, json: { errors: [`Attachment too large: more than ${maxBody} bytes.`] } });
        req.destroy();
        return;
      }
      let raw: Buffer = Buffer.concat(chunks);
      const type = req.headers['content-type'] ?? '';
      if (call.jsonBody) {
        if (paramErrors.length) return send(res, { status: 400, json: { errors: paramErrors } });
        const contentType = String(type);
        return send(res, await call.handle(this.opts.device, { args, path: parts.path, body: new Uint8Array(raw), contentType }));
      }
      if (/^multipart\/form-data/i.test(type)) {
        const part = firstMultipartPart(raw, type);
        if (!part) return send(res, { status: 400, json: { errors: ['Upload of file failed.'] } });
        raw = part.content;
        uploadName = part.filename;
      }
      if (raw.length === 0) return send(res, { status: 412, json: { errors: ['Expected Body, but got none.'] } });
      if (paramErrors.length) return send(res, { status: 400, json: { errors: paramErrors } });
      body = new Uint8Array(raw);
    } else {
      req.resume();
    }
    const contentType = String(req.headers['content-type'] ?? '');
    send(res, await call.handle(this.opts.device, { args, path: parts.path, body, contentType, uploadName }));
  }

  /** `port` lets the device listen again on the same port after its native state (docs/ultimate/NATIVE.md). */
  async listen(port = this.opts.port): Promise<number> {
    this.port = await listenLoopback(this.#server, port, this.opts.host);
    return this.port;
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await closeServer(this.#server);
  }
}
