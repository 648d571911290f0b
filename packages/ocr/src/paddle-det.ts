// PP-OCRv4 text detection: resize as PaddleOCR does (longest side limited, multiple of 32), run DB, extract boxes.
import { type InferenceSession, Tensor } from 'onnxruntime-node';
import { boxesFromProbMap } from './db-postprocess.js';
import { resizeRgb } from './image.js';
import type { Quad, RgbImage } from './types.js';

const MEAN = [0.485, 0.456, 0.406];
const STD = [0.229, 0.224, 0.225];

/** Detection input size: longest side at most `maxSide` (no upscaling), each side rounded to a multiple of 32. */
export function detectionSize(width: number, height: number, maxSide: number): { width: number; height: number } {
  const ratio = Math.max(width, height) > maxSide ? maxSide / Math.max(width, height) : 1;
  const to32 = (v: number) => Math.max(Math.round((v * ratio) / 32) * 32, 32);
  return { width: to32(width), height: to32(height) };
}

/** Text region quads (clockwise from top-left) in the image's own pixel space. */
export async function detectText(session: InferenceSession, img: RgbImage, maxSide: number): Promise<Quad[]> {
  const size = detectionSize(img.width, img.height, maxSide);
  const input = await resizeRgb(img, size.width, size.height);
  const plane = size.width * size.height;
  const tensor = new Float32Array(3 * plane);
  // PaddleOCR feeds BGR (OpenCV order) and normalises channel k with MEAN[k] / STD[k]
  for (let i = 0; i < plane; i++) {
    for (let k = 0; k < 3; k++) tensor[k * plane + i] = (input.data[i * 3 + (2 - k)]! / 255 - MEAN[k]!) / STD[k]!;
  }
  const feeds = { [session.inputNames[0]!]: new Tensor('float32', tensor, [1, 3, size.height, size.width]) };
  const out = (await session.run(feeds))[session.outputNames[0]!]!;
  const [, , h, w] = out.dims;
  const map = { data: out.data as Float32Array, width: w!, height: h! };
  return boxesFromProbMap(map, img.width / w!, img.height / h!, img.width, img.height);
}
