import { afterEach, vi } from 'vitest';
import { configure } from '@testing-library/react';

// antd renders slowly in jsdom, more so when the suite runs in parallel on a small machine
configure({ asyncUtilTimeout: 5_000 });

// antd needs matchMedia and a canvas context that jsdom does not provide
Object.defineProperty(window, 'matchMedia', {
  writable: true,
  configurable: true,
  value: (query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => undefined,
    removeListener: () => undefined,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
    dispatchEvent: () => false,
  }),
});
HTMLCanvasElement.prototype.getContext = vi.fn(() => null);
if (!window.ResizeObserver) {
  window.ResizeObserver = class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
}
window.scrollTo = () => undefined;

afterEach(() => {
  localStorage.clear();
});
