import { describe, expect, it } from 'vitest';
import { documentRegionPath, regionFromSearch } from './document-links';

describe('links to a region of a source document', () => {
  it('round-trips a region through the review URL', () => {
    const path = documentRegionPath(7, { page: 1, x: 10.4, y: 20, width: 300, height: 24 });
    expect(path).toBe('/project/uploadTuomin?id=7&region=file%3A7%3Ap1%3A10%2C20%2C300%2C24');
    const params = new URL(path, 'http://x').searchParams;
    expect(regionFromSearch(params, 7)).toEqual({ page: 1, x: 10, y: 20, width: 300, height: 24 });
  });
  it('ignores a missing, malformed or other file region', () => {
    expect(documentRegionPath(7, null)).toBe('/project/uploadTuomin?id=7');
    expect(regionFromSearch(new URLSearchParams(''), 7)).toBeNull();
    expect(regionFromSearch(new URLSearchParams('region=nonsense'), 7)).toBeNull();
    expect(regionFromSearch(new URLSearchParams('region=file:8:p0:1,2,3,4'), 7)).toBeNull();
  });
});
