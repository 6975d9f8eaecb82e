/** `rein bench compare` (see bench/compare/). */
export async function compareCommand(_opts: Record<string, unknown>): Promise<number> {
  process.stderr.write('rein: bench compare is not available yet\n');
  return 2;
}
