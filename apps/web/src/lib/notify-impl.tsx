import { ConfigProvider, message, notification } from 'antd';
import { AntdProvider } from '../components/antd-provider';

// static notifications get the product's theme and the current language's locale
ConfigProvider.config({ holderRender: (children) => <AntdProvider>{children}</AntdProvider> });
message.config({ top: 64 });

export function showError(title: string, description: string, key?: string): void {
  notification.error({ title, description, key, duration: 6 });
}

export function showMessage(type: 'error' | 'success', content: string, key?: string): void {
  void message.open({ type, content, key });
}
