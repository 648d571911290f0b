import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '@testing-library/react';
import { exposeLifecycles, LIFECYCLE_GLOBAL, type bootstrap, type mount, type unmount } from './micro-app';

afterEach(() => {
  document.body.innerHTML = '';
});

describe('micro-app mode (qiankun-style lifecycle)', () => {
  it('mounts inside a host page under a base path and unmounts cleanly', async () => {
    exposeLifecycles();
    const lifecycles = (
      window as unknown as Record<
        string,
        { bootstrap: typeof bootstrap; mount: typeof mount; unmount: typeof unmount }
      >
    )[LIFECYCLE_GLOBAL]!;
    const host = document.createElement('main');
    host.innerHTML = '<header id="host-header">Host shell</header><section id="slot"></section>';
    document.body.appendChild(host);
    const slot = host.querySelector('#slot')!;

    await lifecycles.bootstrap();
    await lifecycles.mount({
      container: slot,
      basePath: '/apps/esource',
      initialPath: '/apps/esource/login',
      storagePrefix: 'host-esource',
      language: 'en_US',
    });
    await waitFor(() => expect(slot.querySelector('[data-testid=login-page]')).not.toBeNull(), {
      timeout: 10_000,
    });
    expect(slot.textContent).toContain('Sign in');
    // the host's own DOM is untouched
    expect(host.querySelector('#host-header')?.textContent).toBe('Host shell');
    expect(localStorage.getItem('host-esource.language')).toBe('"en_US"');

    await lifecycles.unmount({ container: slot });
    expect(slot.innerHTML).toBe('');
    expect(host.querySelector('#host-header')).not.toBeNull();
  });
});
