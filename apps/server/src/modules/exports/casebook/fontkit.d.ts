/**
 * The part of fontkit 2 (which ships no types) that the casebook's font adapter uses; the fonts it returns are handed
 * to pdf-lib, which types them itself.
 */
declare module 'fontkit' {
  export interface FontkitSubset {
    encode(): Uint8Array;
  }
  export interface FontkitFont {
    type: string;
    postscriptName: string | null;
    hasGlyphForCodePoint(codePoint: number): boolean;
    createSubset(): FontkitSubset;
  }
  export interface FontkitCollection {
    type: 'TTC' | 'DFont';
    fonts: FontkitFont[];
    getFont(postscriptName: string): FontkitFont | null;
  }
  export function create(buffer: Uint8Array, postscriptName?: string): FontkitFont | FontkitCollection;
}
