import type { PluginApi, PluginDefinition } from '../../src/plugins/plugin-api.ts';

export default function webhooks(_api: PluginApi): PluginDefinition {
  return {};
}
