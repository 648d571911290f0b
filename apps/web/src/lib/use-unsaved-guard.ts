import { useCallback, useEffect, useRef } from 'react';
import { App } from 'antd';
import { useBlocker } from 'react-router';

export interface UnsavedGuardTexts {
  title: string;
  content: string;
  ok: string;
  cancel: string;
}

/**
 * Keeps unsaved work from being lost: any in-app navigation away (back link, breadcrumb, side menu, module tabs,
 * browser back; with `watchSearch` also a change of the query string) while `dirty` asks first in an antd dialog
 * (react-router's useBlocker), and closing or reloading the tab gets the browser's own prompt (beforeunload).
 * `clean()` marks the work saved at once, so that the URL change a save makes is not taken for leaving;
 * `confirmDiscard(then)` asks the same before an action on the page that would drop the work.
 */
export function useUnsavedGuard(
  dirty: boolean,
  texts: UnsavedGuardTexts,
  opts: { watchSearch?: boolean; testIdPrefix: string },
): { clean: () => void; confirmDiscard: (then: () => void) => void } {
  const { modal } = App.useApp();
  const dirtyRef = useRef(dirty);
  useEffect(() => {
    dirtyRef.current = dirty;
  }, [dirty]);
  const textsRef = useRef(texts);
  textsRef.current = texts;
  const watchSearch = opts.watchSearch ?? false;
  const prefix = opts.testIdPrefix;

  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      dirtyRef.current && (currentLocation.pathname !== nextLocation.pathname || (watchSearch && currentLocation.search !== nextLocation.search)),
  );
  const asking = useRef(false);
  useEffect(() => {
    if (blocker.state !== 'blocked' || asking.current) return;
    asking.current = true;
    const x = textsRef.current;
    modal.confirm({
      title: x.title,
      content: x.content,
      okText: x.ok,
      okButtonProps: { danger: true, 'data-testid': `${prefix}-leave-ok` },
      cancelText: x.cancel,
      cancelButtonProps: { 'data-testid': `${prefix}-leave-cancel` },
      onOk: () => {
        asking.current = false;
        dirtyRef.current = false;
        blocker.proceed();
      },
      onCancel: () => {
        asking.current = false;
        blocker.reset();
      },
    });
  }, [blocker, modal, prefix]);

  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const clean = useCallback(() => {
    dirtyRef.current = false;
  }, []);
  const confirmDiscard = useCallback(
    (then: () => void) => {
      if (!dirtyRef.current) return then();
      const x = textsRef.current;
      modal.confirm({ title: x.title, content: x.content, okText: x.ok, okButtonProps: { danger: true }, cancelText: x.cancel, onOk: then });
    },
    [modal],
  );
  return { clean, confirmDiscard };
}
