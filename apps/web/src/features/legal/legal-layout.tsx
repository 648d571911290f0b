import type { ReactNode } from 'react';
import { Alert, Typography } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { Link, useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';
import { LOGIN_VARIANTS } from '@esource/shared';
import { privacyVariant, productFor, ProductLogo } from '../brand';
import { LanguageSwitch } from '../layout';
import { adminInfoQuery } from '../system-settings';

import zhLegal from '../../locales/zh_CN/legal.json';
import enLegal from '../../locales/en_US/legal.json';
import { i18n } from '../../i18n/i18n';
import './legal-layout.css';

i18n.addResourceBundle('zh_CN', 'legal', zhLegal, true, true);
i18n.addResourceBundle('en_US', 'legal', enLegal, true, true);

export interface LegalSection {
  heading: string;
  /** one paragraph, or several */
  body?: string | string[];
  /** a bulleted list after the paragraphs */
  items?: string[];
}

/** Who to contact: the administrator as set in System settings (nothing set: the sentence alone). */
function Contact() {
  const { t } = useTranslation('legal');
  const { data } = useQuery(adminInfoQuery());
  const who = data ? [data.name, data.phone, data.mail].filter(Boolean).join(' · ') : '';
  return (
    <section data-testid="legal-contact">
      <Typography.Title level={4}>{t('contactHeading')}</Typography.Title>
      {who ? (
        <Typography.Paragraph>
          {t('contactBody')} <strong data-testid="legal-contact-who">{who}</strong>
          {data?.note ? ` (${data.note})` : ''}
        </Typography.Paragraph>
      ) : (
        <Typography.Paragraph>{t('contactBodyNone')}</Typography.Paragraph>
      )}
    </section>
  );
}

/** Frame of the standalone legal pages (privacy policies, agreement, personal information list). */
export function LegalLayout({
  title,
  intro,
  sections,
  children,
}: {
  title: string;
  intro: string;
  sections: LegalSection[];
  children?: ReactNode;
}) {
  const { t } = useTranslation(['legal', 'common']);
  const variant = privacyVariant(useLocation().pathname);
  const product = productFor(variant, null);
  return (
    <div className="esource-legal" data-testid="legal-page">
      <header className="esource-legal-header">
        <ProductLogo product={product} />
        <strong data-testid="product-name">{t(`common:${product.nameKey}`)}</strong>
        <span style={{ flex: 1 }} />
        <LanguageSwitch />
        <Link to={LOGIN_VARIANTS[variant].path} className="esource-legal-back">
          {t('legal:backToLogin')}
        </Link>
      </header>
      <main className="esource-legal-main">
        <Typography.Title level={2}>{title}</Typography.Title>
        <Typography.Paragraph type="secondary">
          {t('legal:updated', { date: '2026-11-01' })}
        </Typography.Paragraph>
        <Alert
          type="info"
          showIcon
          title={t('legal:draftNote')}
          style={{ marginBottom: 16 }}
          data-testid="legal-draft-note"
        />
        <Typography.Paragraph>{intro}</Typography.Paragraph>
        {children}
        {sections.map((s) => (
          <section key={s.heading}>
            <Typography.Title level={4}>{s.heading}</Typography.Title>
            {(Array.isArray(s.body) ? s.body : s.body ? [s.body] : []).map((p) => (
              <Typography.Paragraph key={p}>{p}</Typography.Paragraph>
            ))}
            {s.items?.length ? (
              <ul style={{ paddingInlineStart: 22, marginBottom: 16 }}>
                {s.items.map((i) => (
                  <li key={i} style={{ marginBottom: 6 }}>
                    {i}
                  </li>
                ))}
              </ul>
            ) : null}
          </section>
        ))}
        <Contact />
      </main>
      <footer style={{ textAlign: 'center', color: 'rgba(0,0,0,.45)', padding: '8px 0 24px' }}>
        © {new Date().getFullYear()} eSource
      </footer>
    </div>
  );
}

export function useSections(key: string): LegalSection[] {
  const { t } = useTranslation('legal');
  const v = t(key, { returnObjects: true }) as unknown;
  return Array.isArray(v) ? (v as LegalSection[]) : [];
}
