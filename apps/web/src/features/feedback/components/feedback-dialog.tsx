import { useState } from 'react';
import { App, Modal, Tabs } from 'antd';
import { useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';
import { MyFeedbackList } from './my-feedback-list';
import { SendFeedbackForm } from './send-feedback-form';

type Tab = 'send' | 'mine';

/**
 * The Feedback dialog of the user menu: send feedback (with the page the user is on) or read "My feedback" with its
 * answers. After sending, it shows the list with the new feedback on top.
 */
export default function FeedbackDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation('feedback');
  const { message } = App.useApp();
  const location = useLocation();
  const [tab, setTab] = useState<Tab>('send');
  return (
    <Modal
      open={open}
      title={t('title')}
      onCancel={onClose}
      footer={null}
      width={680}
      destroyOnHidden
      rootClassName="feedback-dialog"
      afterOpenChange={(o) => {
        if (!o) setTab('send');
      }}
    >
      <Tabs
        activeKey={tab}
        onChange={(k) => setTab(k as Tab)}
        items={[
          {
            key: 'send',
            label: <span data-testid="feedback-tab-send">{t('tabs.send')}</span>,
            children: (
              <SendFeedbackForm
                pagePath={location.pathname}
                onCancel={onClose}
                onSent={() => {
                  void message.success(t('sent'));
                  setTab('mine');
                }}
              />
            ),
          },
          {
            key: 'mine',
            label: <span data-testid="feedback-tab-mine">{t('tabs.mine')}</span>,
            children: <MyFeedbackList active={open && tab === 'mine'} />,
          },
        ]}
      />
    </Modal>
  );
}
