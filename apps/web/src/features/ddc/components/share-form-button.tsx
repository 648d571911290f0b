import { useState } from 'react';
import { Button, Tooltip } from 'antd';
import { ShareAltOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { ShareDialog, type ShareTarget } from './share-dialog';

/** "Share with participant" on a form of the eCRF: a link to this form for this subject and visit. */
export function ShareFormButton({
  target,
  disabledReason,
}: {
  target: ShareTarget;
  disabledReason?: string | null;
}) {
  const { t } = useTranslation('ddc');
  const [open, setOpen] = useState(false);
  return (
    <>
      <Tooltip title={disabledReason ?? t('share.hint')}>
        <Button
          icon={<ShareAltOutlined />}
          disabled={Boolean(disabledReason)}
          onClick={() => setOpen(true)}
          data-testid="crf-share"
        >
          {t('share.button')}
        </Button>
      </Tooltip>
      {open ? <ShareDialog target={target} onClose={() => setOpen(false)} /> : null}
    </>
  );
}
