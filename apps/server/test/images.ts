/** Test images made with sharp: random noise does not compress, so a modest size gives a large file. */
import sharp from 'sharp';

/** A PNG of noise, 1100 × 1100 by default: over 2 MB (the avatar and screenshot limit). */
export function noisePng(side = 1100): Promise<Buffer> {
  return sharp({ create: { width: side, height: side, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 60 } } })
    .png()
    .toBuffer();
}
