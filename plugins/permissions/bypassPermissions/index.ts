/**
 * `permissions/bypassPermissions`: every call the earlier stages did not stop runs. Deny rules,
 * ask rules and the safety check (protected paths, writes outside the working directories) still
 * apply. Loading it requires `permissions.allowBypassPermissions: true` in the preset, so a mode
 * switch alone cannot turn checks off.
 */
import { PluginError } from '../../../kernel/index.js';
import { permissionContext } from '../shared/config.js';
import { defineModePlugin } from '../shared/mode-plugin.js';

export default defineModePlugin('bypassPermissions', 'Permission mode bypassPermissions: everything not denied, asked or protected runs. Requires permissions.allowBypassPermissions: true.', undefined, (kernel) => {
  if (!permissionContext(kernel).config.allowBypassPermissions) {
    throw new PluginError('permissions/bypassPermissions', 'permission mode bypassPermissions needs the explicit opt-in `permissions.allowBypassPermissions: true` in the preset');
  }
});
