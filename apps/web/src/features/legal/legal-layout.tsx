import type { ReactNode } from 'react';
import { Typography } from 'antd';
import { Link, useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';
import { LOGIN_VARIANTS } from '@esource/shared';
import { privacyVariant, productFor, ProductLogo } from '../brand';
import { LanguageSwitch } from '../layout';

import zhLegal from '../../locales/zh_CN/legal.json';
import enLegal from '../../locales/en_US/legal.json';
import { i18n } from '../../i18n/i18n';

i18n.addResourceBundle('zh_CN', 'legal', zhLegal, true, true);
i18n.addResourceBundle('en_US', 'legal', enLegal, true, true);

export interface LegalSection {
  heading: string;
  body: string;
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
    <div style={{ minHeight: '100vh', background: '#f5f7fb' }} data-testid="legal-page">
      <header
        style={{
          display: 'flex',
          alignItems: 'center',
          gap: 12,
          padding: '12px 24px',
          background: '#fff',
          borderBottom: '1px solid #eef0f3',
        }}
      >
        <ProductLogo product={product} />
        <strong data-testid="product-name">{t(`common:${product.nameKey}`)}</strong>
        <span style={{ flex: 1 }} />
        <LanguageSwitch />
        <Link to={LOGIN_VARIANTS[variant].path} style={{ color: '#1668dc', textDecoration: 'none' }}>
          {t('legal:backToLogin')}
        </Link>
      </header>
      <main
        style={{
          maxWidth: 860,
          margin: '24px auto',
          background: '#fff',
          borderRadius: 10,
          padding: '32px 40px',
        }}
      >
        <Typography.Title level={2}>{title}</Typography.Title>
        <Typography.Paragraph type="secondary">
          {t('legal:updated', { date: '2026-11-01' })}
        </Typography.Paragraph>
        <Typography.Paragraph>{intro}</Typography.Paragraph>
        {sections.map((s) => (
          <section key={s.heading}>
            <Typography.Title level={4}>{s.heading}</Typography.Title>
            <Typography.Paragraph>{s.body}</Typography.Paragraph>
          </section>
        ))}
        {children}
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
