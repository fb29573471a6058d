/** The MCP SDK's Streamable HTTP transport, for the service's `/mcp`; bundled in the package (see ./mcp-sdk.ts). */
export { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
