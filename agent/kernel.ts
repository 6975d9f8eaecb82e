/**
 * `createKernel` as rein's own code uses it: the kernel's, given lib/'s services (token counting,
 * prices, model facts, path resolution) unless the caller passes its own. The `rein` entry exports
 * this one; the kernel's bare `createKernel` (kernel/index.ts) uses the kernel's small defaults.
 */
import { createKernel as createBareKernel, type Kernel, type KernelOptions } from '../kernel/index.js';
import { libServices } from '../lib/index.js';

/**
 * Creates a kernel with rein's services (`libServices`; `options.services` overrides each one) and
 * loads its plugins in order. Throws as the kernel's `createKernel` does (PluginError).
 */
export function createKernel(options: KernelOptions): Promise<Kernel> {
  return createBareKernel({ ...options, services: { ...libServices, ...options.services } });
}
