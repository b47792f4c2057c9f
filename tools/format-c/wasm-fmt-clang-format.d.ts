// The one call used from @wasm-fmt/clang-format. Its own types are reachable only through its
// package "exports", which this project's `moduleResolution: node` does not read.
declare module '@wasm-fmt/clang-format' {
  /** Formats a C source; `style` is the text of a .clang-format file. */
  export function format(content: string, filename: string, style: string): string;
}
