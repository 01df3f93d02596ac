export type { Transport, JsonRpcMessage, JsonRpcId } from './transport.js';
export { JsonParseError, MessageTooLargeError } from './transport.js';
export { NdjsonDecoder, encodeMessage, DEFAULT_MAX_LINE_BYTES } from './ndjson.js';
export { StreamTransport, type StreamTransportOptions } from './stream.js';
export { StdioServerTransport } from './stdio.js';
export { spawnStdio, type SpawnStdioOptions } from './child-process.js';
export { InMemoryTransport } from './in-memory.js';
export {
  serveUnixSocket,
  connectUnixSocket,
  SocketInUseError,
  SocketPathTooLongError,
  checkSocketPath,
  MAX_SOCKET_PATH_BYTES,
  SOCKET_BUSY_CODE,
  type IdentifiedConnection,
  type UnixSocketListener,
  type UnixSocketServerOptions,
} from './unix-socket.js';
export * from './streamable-http/index.js';
