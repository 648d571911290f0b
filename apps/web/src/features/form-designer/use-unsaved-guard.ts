import { useCallback, useEffect, useRef } from 'react';
import { App } from 'antd';
import { useBlocker } from 'react-router';
import { useTranslation } from 'react-i18next';

/**
 * Keeps unsaved designer work from being lost: any in-app navigation away (back link, breadcrumb, side menu,
 * module tabs, browser back) while `dirty` asks first in an antd dialog (react-router's useBlocker), and closing
 * or reloading the tab gets the browser's own prompt (beforeunload). `clean()` marks the work saved at once, so
 * that the URL change a save makes (a new form's id) is not taken for leaving.
 */
export function useUnsavedGuard(dirty: boolean): { clean: () => void } {
  const { t } = useTranslation('designer');
  const { modal } = App.useApp();
  const dirtyRef = useRef(dirty);
  useEffect(() => {
    dirtyRef.current = dirty;
  }, [dirty]);

  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      dirtyRef.current && (currentLocation.pathname !== nextLocation.pathname || currentLocation.search !== nextLocation.search),
  );
  const asking = useRef(false);
  useEffect(() => {
    if (blocker.state !== 'blocked' || asking.current) return;
    asking.current = true;
    modal.confirm({
      title: t('leave.title'),
      content: t('leave.content'),
      okText: t('leave.ok'),
      okButtonProps: { danger: true, 'data-testid': 'designer-leave-ok' },
      cancelText: t('leave.cancel'),
      cancelButtonProps: { 'data-testid': 'designer-leave-cancel' },
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
  }, [blocker, modal, t]);

  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const clean = useCallback(() => {
    dirtyRef.current = false;
  }, []);
  return { clean };
}
