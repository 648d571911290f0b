import { useEffect, useState, type CSSProperties } from 'react';
import { Skeleton, Typography } from 'antd';
import { FileImageOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { pageImageQuery } from '../api/documents-api';

/** An object URL for a blob, revoked when the blob changes or the component goes. */
export function useObjectUrl(blob: Blob | undefined): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!blob) {
      setUrl(null);
      return undefined;
    }
    const u = URL.createObjectURL(blob);
    setUrl(u);
    return () => URL.revokeObjectURL(u);
  }, [blob]);
  return url;
}

interface Props {
  id: number;
  version: number;
  page: number;
  copy: 'redacted' | 'original';
  /** thumbnail width (server-scaled); absent = full page */
  width?: number;
  alt: string;
  style?: CSSProperties;
  className?: string;
  /** not ready yet (automatic de-identification running): a placeholder instead of a request */
  ready?: boolean;
  onLoad?: (size: { width: number; height: number }) => void;
  testId?: string;
}

/** A page of a source file, fetched with the session's headers (the API is not reachable by a bare <img src>). */
export function PageImage({ id, version, page, copy, width, alt, style, className, ready = true, onLoad, testId }: Props) {
  const { t } = useTranslation('documents');
  const q = useQuery(pageImageQuery(id, version, page, copy, width, ready));
  const url = useObjectUrl(q.data);
  const box: CSSProperties = { width: width ?? '100%', height: width ? Math.round(width * 1.3) : 240, ...style };
  if (!ready)
    return (
      <div className={`doc-thumb-empty ${className ?? ''}`} style={box} data-testid={testId}>
        <FileImageOutlined />
      </div>
    );
  if (q.isError)
    return (
      <div className={`doc-thumb-empty ${className ?? ''}`} style={box} data-testid={testId}>
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {t('viewer.imageFailed')}
        </Typography.Text>
      </div>
    );
  if (!url) return <Skeleton.Image active style={box} />;
  return (
    <img
      src={url}
      alt={alt}
      draggable={false}
      className={className}
      style={width ? { width, ...style } : style}
      data-testid={testId}
      onLoad={(e) => onLoad?.({ width: e.currentTarget.naturalWidth, height: e.currentTarget.naturalHeight })}
    />
  );
}
