/** Types for the parts of `mvdan-sh` (mvdan/sh compiled to JavaScript) that rein uses. */
declare module 'mvdan-sh' {
  /** A position in the source: byte offset from 0. */
  export interface ShPos { Offset(): number; Line(): number; Col(): number }
  /** Any syntax node; fields depend on `syntax.NodeType(node)` (mvdan.cc/sh/v3/syntax). */
  export interface ShNode { Pos(): ShPos; End(): ShPos; [field: string]: any }
  export interface ShParser { Parse(src: string, name: string): ShNode }
  const sh: {
    syntax: {
      NewParser(...options: unknown[]): ShParser;
      NodeType(node: ShNode): string;
      Walk(node: ShNode, visit: (node: ShNode | null) => boolean): void;
    };
  };
  export default sh;
}
