/**
 * State that plugins share through the kernel instead of importing each other's modules: one
 * plugin writes it, others read it, each naming it by the same key (by convention the owning
 * plugin's name, `memory-files`, `cache/breakpoints`). The state lives on the kernel, so it is per
 * agent, goes away with it, and is the same object whichever copy of rein a plugin was loaded with.
 *
 * Every user of a key passes a factory that builds the same shape; the first call on a kernel
 * builds it, later calls (from any plugin) get that object. A reader declares the fields it reads.
 *
 * @example
 * // The owner (memory-files) fills it in:
 * const memoryState = createKernelState('memory-files', () => ({ files: [] as { path: string }[] }));
 * memoryState(kernel).files = loaded;
 * // A reader (compaction/auto), without importing memory-files:
 * const memoryState = createKernelState('memory-files', () => ({ files: [] as { path: string }[] }));
 * const paths = memoryState(kernel).files.map((f) => f.path);
 */
export function createKernelState<T extends object>(key: string, factory: () => T): (kernel: { readonly state: Map<string, unknown> }) => T {
  return (kernel) => {
    let value = kernel.state.get(key) as T | undefined;
    if (value === undefined) {
      value = factory();
      kernel.state.set(key, value);
    }
    return value;
  };
}
