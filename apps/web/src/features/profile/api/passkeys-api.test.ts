import { describe, expect, it } from 'vitest';
import { suggestedDeviceName } from './passkeys-api';

describe('suggestedDeviceName', () => {
  it('names browser and system from the user agent', () => {
    expect(
      suggestedDeviceName(
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36 Edg/140.0',
      ),
    ).toBe('Edge · Windows');
    expect(
      suggestedDeviceName(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1',
      ),
    ).toBe('Safari · iPhone');
    expect(
      suggestedDeviceName('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/140.0 Safari/537.36'),
    ).toBe('Chrome · Linux');
    expect(suggestedDeviceName('')).toBe('Browser');
  });
});
