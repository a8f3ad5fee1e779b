import type { Module } from '../../module.ts';
import { registerMcpRoutes } from './mcp-routes.ts';

/** A Model Context Protocol server for AI agents and integrators (docs/mcp.md). */
export function mcpModule(): Module {
  return { name: 'mcp', register: registerMcpRoutes };
}
