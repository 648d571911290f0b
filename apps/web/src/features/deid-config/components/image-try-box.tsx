import { useEffect, useMemo, useState } from 'react';
import { Alert, Button, Card, Space, Tag, Typography, Upload } from 'antd';
import { UploadOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { LIMITS, type DeidSpanKind, type OcrToolResult } from '@esource/shared';
import { deidConfigApi } from '../api/deid-config-api';

/**
 * The try-out on an image: a sample page (PNG/JPG ≤ 2 MB) is read by the OCR engine on the server and boxed with the
 * saved keywords and policy, as the de-identification job would; the page is shown here with the boxes, with a count
 * per kind. Nothing is stored.
 */
export function ImageTryBox() {
  const { t } = useTranslation('deidConfig');
  const [file, setFile] = useState<File | null>(null);
  const [result, setResult] = useState<OcrToolResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const url = useMemo(() => (file ? URL.createObjectURL(file) : null), [file]);
  useEffect(() => () => (url ? URL.revokeObjectURL(url) : undefined), [url]);

  const run = async (f: File) => {
    setFile(f);
    setResult(null);
    setError(null);
    if (f.size > LIMITS.imageMaxBytes) {
      setError(t('image.tooLarge', { mb: LIMITS.imageMaxBytes / 1024 / 1024 }));
      return;
    }
    setBusy(true);
    try {
      setResult(await deidConfigApi.tryImage(f));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  const counts = new Map<string, number>();
  for (const b of result?.boxes ?? []) counts.set(b.kind, (counts.get(b.kind) ?? 0) + 1);

  return (
    <Card title={t('image.title')} size="small" data-testid="deid-image-test">
      <Typography.Paragraph type="secondary">{t('image.help', { mb: LIMITS.imageMaxBytes / 1024 / 1024 })}</Typography.Paragraph>
      <Upload
        accept=".png,.jpg,.jpeg,image/png,image/jpeg"
        showUploadList={false}
        beforeUpload={(f) => {
          void run(f);
          return false;
        }}
      >
        <Button icon={<UploadOutlined />} loading={busy} data-testid="deid-image-pick">
          {t('image.pick')}
        </Button>
      </Upload>
      {busy ? <Typography.Paragraph type="secondary" style={{ marginTop: 8 }}>{t('image.reading')}</Typography.Paragraph> : null}
      {error ? <Alert type="error" showIcon title={error} style={{ marginTop: 12 }} data-testid="deid-image-error" /> : null}
      {result && url ? (
        <div style={{ marginTop: 12 }} data-testid="deid-image-result">
          <Space wrap style={{ marginBottom: 8 }}>
            <Typography.Text>{t('image.found', { count: result.boxes.length, lines: result.lines.length })}</Typography.Text>
            {[...counts].map(([k, n]) => (
              <Tag key={k}>
                {t(`kind.${k as DeidSpanKind}`, { defaultValue: k })} × {n}
              </Tag>
            ))}
          </Space>
          <div className="deid-image-page" style={{ aspectRatio: `${result.width} / ${result.height}` }}>
            <img src={url} alt={file?.name ?? ''} />
            {result.boxes.map((b, i) => (
              <div
                key={i}
                className="deid-image-box"
                title={t(`kind.${b.kind as DeidSpanKind}`, { defaultValue: b.kind })}
                style={{ left: `${(b.x / result.width) * 100}%`, top: `${(b.y / result.height) * 100}%`, width: `${(b.width / result.width) * 100}%`, height: `${(b.height / result.height) * 100}%` }}
              />
            ))}
          </div>
        </div>
      ) : null}
    </Card>
  );
}
