/**
 * State plugins share through the kernel instead of importing each other, by key (the owner's
 * name). The first call on a kernel builds it with `factory`; later calls get that object.
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
