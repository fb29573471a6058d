/**
 * The MCP SDK as barometer's MCP server uses it. In the package this file is a bundle of exactly these exports
 * (scripts/bundle-vendored.ts): the SDK installs 16 MB in 60 packages (Express, Hono, CORS, JOSE, ...) for the
 * few hundred kilobytes of it a server over stdio and Streamable HTTP runs. See docs/decisions/019-install-size.md.
 */
export { Server } from '@modelcontextprotocol/sdk/server/index.js';
export {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
