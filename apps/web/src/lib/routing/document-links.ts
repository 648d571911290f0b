/**
 * A link to a region of a source document (an eCRF value read by OCR association, shown from the pre-fill review or
 * a source record): the review screen opens the file at the region's page with the region outlined. The region
 * travels as the shared text form `file:<id>:p<page>:<x>,<y>,<w>,<h>` (fileRegionRef).
 */
import { fileRegionRef, parseFileRegionRef, type PageRegion } from '@esource/shared';

export function documentRegionPath(fileId: number, region: PageRegion | null | undefined): string {
  const base = `/project/uploadTuomin?id=${fileId}`;
  return region ? `${base}&region=${encodeURIComponent(fileRegionRef(fileId, region))}` : base;
}

/** The region a review URL names for this file, or null (none, malformed, or another file's). */
export function regionFromSearch(params: URLSearchParams, fileId: number): PageRegion | null {
  const r = parseFileRegionRef(params.get('region'));
  if (!r || r.fileId !== fileId) return null;
  return { page: r.page, x: r.x, y: r.y, width: r.width, height: r.height };
}
