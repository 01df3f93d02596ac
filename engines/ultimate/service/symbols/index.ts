// Label and map files of C64 assemblers, address resolution and run comparison: pure functions,
// no I/O and no MCP. The service's resolve and compare routes call them.
export { parseAddress, addressHex, type AddressParse } from './address.js';
