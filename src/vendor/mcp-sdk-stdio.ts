/** The MCP SDK's stdio transport, for `barometer mcp`; bundled in the package (see ./mcp-sdk.ts). */
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
