/** Types for the part of `mvdan-sh` (mvdan/sh compiled to JavaScript) that rein uses: the parser. */
declare module 'mvdan-sh' {
  const sh: {
    syntax: {
      /** A bash parser; `Parse` throws an error object with an `Error()` method on a syntax error. */
      NewParser(...options: unknown[]): { Parse(src: string, name: string): unknown };
    };
  };
  export default sh;
}
