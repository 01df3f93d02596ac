export {
  serveStreamableHttp,
  createStreamableHttpHandler,
  accepts,
  type StreamableHttpServerOptions,
  type StreamableHttpHandler,
  type StreamableHttpListener,
} from './server.js';
export { StreamableHttpServerTransport, type HttpMessageExtra } from './server-transport.js';
export { bearerAuth, staticBearerToken, isLoopbackHost, type BearerAuth, type BearerAuthOptions, type AuthOutcome } from './guards.js';
export { encodeHeaderValue, decodeHeaderValue } from './header-encoding.js';
export { HTTP_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION, isModernVersion } from './versions.js';
export { HttpErrorCode } from './http-errors.js';
export { SseParser, encodeSseEvent, type SseEvent } from './sse.js';
export { StreamableHttpClientTransport, StreamableHttpError, type StreamableHttpClientOptions } from './client.js';
export {
  serveHttpForCli,
  takeHttpOption,
  parseHttpAddress,
  loadHttpToken,
  HTTP_TOKEN_ENV,
  HTTP_OPTIONS_HELP,
  type HttpCliFlags,
  type ServeHttpCliOptions,
} from './cli.js';
