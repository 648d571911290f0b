import { Spin } from 'antd';

/** Shown while a lazy page or the user's info loads (also the router's HydrateFallback). */
export function PageSpinner() {
  return (
    <div style={{ minHeight: 240, height: '100%', display: 'flex', alignItems: 'center', justifyContent: 'center' }}>
      <Spin size="large" />
    </div>
  );
}
