import type * as Impl from './notify-impl';

/**
 * Notifications without weighing on the first screen: antd's message/notification code is loaded the first
 * time something must be shown (./notify-impl). Used by the API client bridge and the route guard.
 */
let impl: Promise<typeof Impl> | null = null;
const load = () => (impl ??= import('./notify-impl'));

export const notify = {
  error(title: string, description: string, key?: string): void {
    void load().then((m) => m.showError(title, description, key));
  },
  warn(content: string, key?: string): void {
    void load().then((m) => m.showMessage('error', content, key));
  },
  success(content: string, key?: string): void {
    void load().then((m) => m.showMessage('success', content, key));
  },
};
