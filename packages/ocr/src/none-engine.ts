// The engine that reads nothing (OCR_ENGINE=none): uploads still flow, no regions are proposed.
import type { OcrEngine, OcrResult, RgbImage } from './types.js';

/** Returns the image size and no regions. */
export class NoneEngine implements OcrEngine {
  /** No text, ever. */
  async recognize(image: RgbImage): Promise<OcrResult> {
    return { width: image.width, height: image.height, regions: [] };
  }

  /** Nothing to release. */
  async close(): Promise<void> {}
}
