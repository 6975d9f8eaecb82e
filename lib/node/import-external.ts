/**
 * `import()` of a package that is not inside rein's command bundle (jiti, tinypool,
 * node-html-markdown).
 *
 * Why not a plain `import()`: the `rein` command runs its bundle from V8's code cache (see
 * bin/rein.js), and on Node 20 a script compiled from a code cache cannot run a dynamic `import()`
 * (it throws ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING). The command's loader therefore puts an
 * import function on `globalThis.__reinImport`; everywhere else (the library, tests) this is a
 * plain `import()`.
 *
 * @param specifier a package name or file URL, resolved as from rein's own package.
 * @returns the module namespace; rejects as `import()` does when the module cannot be loaded.
 */
export function importExternal<T>(specifier: string): Promise<T> {
  const viaLoader = (globalThis as { __reinImport?: (s: string) => Promise<unknown> }).__reinImport;
  return (viaLoader ? viaLoader(specifier) : import(specifier)) as Promise<T>;
}
