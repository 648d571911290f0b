export { maskPhone, watermarkLines, watermarkTile, type WatermarkInput } from './watermark-text';
export { watermarkStyle, keepWatermark, Watermark } from './watermark';
