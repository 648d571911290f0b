import { Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { App, Badge, Breadcrumb, Button, Layout, Menu, Result, Tag, Tooltip, Typography } from 'antd';
import type { MenuProps } from 'antd';
import { MenuFoldOutlined, MenuUnfoldOutlined } from '@ant-design/icons';
import { Link, Outlet, useLocation, useNavigate } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { can, LIMITS, type LoginType } from '@esource/shared';
import { useGuardDecision } from '../../lib/routing/guard-context';
import { PageSpinner } from '../../components/page-spinner';
import { AntdProvider } from '../../components/antd-provider';
import { APP_VERSION } from '../../lib/build-flags';
import { breadcrumbsFor, menuFor, moduleLanding, moduleTabs, type MenuNode } from '../../lib/routing/route-access';
import { readJson, writeJson } from '../../lib/storage';
import { sessionStore, useSession, useAccess, useUserInfo, authApi } from '../session';
import { productFor, ProductLogo } from '../brand';
import { AdminContact } from '../system-settings';
import { Watermark, watermarkLines } from '../watermark';
import { ProgressPanel, progressApi } from '../progress';
import { tabCountsQuery } from '../documents';
import { SearchPalette, useSearchShortcut } from '../search';
import { ModifyPasswordDialog } from '../password';
import { FeedbackDialog } from '../feedback';
import { LanguageSwitch } from './language-switch';
import { EnvSwitch } from './env-switch';
import { UserMenu } from './user-menu';
import { MessageBadge, SearchButton } from './top-bar-extras';
import { FALLBACK_ICON, MENU_ICONS } from './menu-icons';
import { useServerClock } from './use-server-clock';
import './app-layout.css';

const { Header, Sider, Content, Footer } = Layout;

function useStickyTrue(v: boolean): boolean {
  const [seen, setSeen] = useState(v);
  if (v && !seen) setSeen(true);
  return seen || v;
}

/** antd's App context (modal, message) lives with the shell, so that its code stays out of the entry chunk. */
export default function AppLayoutRoot() {
  return (
    <AntdProvider>
      <App>
        <AppLayout />
      </App>
    </AntdProvider>
  );
}

/** The frame every screen inside the app lives in (spec §2 Layout). */
function AppLayout() {
  const { t } = useTranslation(['layout', 'routes', 'common', 'password']);
  const { modal } = App.useApp();
  const decision = useGuardDecision();
  const route = decision && decision.kind !== 'redirect' ? decision.route : undefined;
  const info = useUserInfo();
  const access = useAccess();
  const navigate = useNavigate();
  const location = useLocation();
  const token = useSession((s) => s.token);
  const variant = useSession((s) => s.variant);
  const sessionLoginType = useSession((s) => s.loginType);
  const project = useSession((s) => s.project);
  const env = useSession((s) => s.env);
  const passwordDueAtLogin = useSession((s) => s.passwordChangeDue);
  const data = info.data;
  const loginType = ((data?.user.loginType as LoginType | undefined) ?? sessionLoginType) || null;
  const product = productFor(variant, loginType);
  const isCentre = loginType === 1;

  const [collapsed, setCollapsed] = useState<boolean>(() => readJson('menuCollapsed') === true);
  const [pwdOpen, setPwdOpen] = useState(false);
  const [feedbackOpen, setFeedbackOpen] = useState(false);
  const [searchOpen, setSearchOpen] = useState(false);
  const openSearch = useCallback(() => setSearchOpen(true), []);
  // mounted from the first opening on (keeps their close animation and state)
  const pwdUsed = useStickyTrue(pwdOpen);
  const feedbackUsed = useStickyTrue(feedbackOpen);
  const searchUsed = useStickyTrue(searchOpen);
  const canSearch = isCentre && Boolean(data && can(data.pms, { anyOf: ['project:search:query'] }));
  useSearchShortcut(canSearch, openSearch);

  const inProject = Boolean(route?.inProject) && project !== null;
  const moduleNo = route?.module ?? 1;
  const menu: MenuNode[] = useMemo(
    () => (access && route?.sideBar ? menuFor(moduleNo, inProject, access) : []),
    [access, route?.sideBar, moduleNo, inProject],
  );
  const showSider = Boolean(route?.sideBar) && menu.length > 0;
  const tabs = access ? moduleTabs(access) : [];

  // version label under the menu
  const version = useQuery({
    queryKey: ['version'],
    queryFn: authApi.version,
    staleTime: Infinity,
    retry: false,
  });
  // ISF dot: site users poll the not-uploaded count every 3 s (spec §6, §7)
  const isfDot = useQuery({
    queryKey: ['isf-dot', project?.id],
    queryFn: progressApi.unUploadNum,
    enabled: loginType === 3 && inProject && Boolean(token),
    refetchInterval: (q) => (q.state.status === 'error' ? false : LIMITS.fileDotPollMs),
    retry: false,
  });

  // de-identification messages waiting for a person: the count on the menu entry (spec §2 /project/message)
  const deidCounts = useQuery(
    tabCountsQuery(
      { env, projectId: project?.id ?? null },
      inProject && Boolean(data && can(data.pms, { anyOf: ['message:pending:query'] })),
    ),
  );

  // 90-day password prompt (spec §5), once per login; every login type can change it here. An initial password
  // is not prompted but forced (the guard keeps the user on the change screen).
  const prompted = useRef(false);
  const due =
    (passwordDueAtLogin || Boolean(data?.user.passwordChangeDue)) && !data?.user.passwordChangeRequired;
  useEffect(() => {
    if (!due || prompted.current || readJson('pwdPrompted') === true) return;
    prompted.current = true;
    writeJson('pwdPrompted', true);
    modal.confirm({
      title: t('password:dueTitle'),
      content: t('password:due'),
      okText: t('password:changeNow'),
      cancelText: t('password:later'),
      rootClassName: 'password-due-prompt',
      onOk: () => setPwdOpen(true),
    });
  }, [due, modal, t]);
  useEffect(() => {
    if (!token) writeJson('pwdPrompted', null);
  }, [token]);

  // watermark
  const contentRef = useRef<HTMLDivElement>(null);
  const clock = useServerClock(data?.currentSystemTime, info.dataUpdatedAt);
  const lines = data
    ? watermarkLines({
        name: data.user.name,
        phone: data.user.phone,
        org: data.user.orgName,
        time: clock,
        hospital: data.affiliatedHospital,
      })
    : [];

  const selectedKey = route?.path ?? location.pathname;
  const openGroup = route?.menu?.group ? `group:${route.menu.group}` : null;
  const [openKeys, setOpenKeys] = useState<string[]>(openGroup ? [openGroup] : []);
  useEffect(() => {
    if (openGroup) setOpenKeys((k) => (k.includes(openGroup) ? k : [...k, openGroup]));
  }, [openGroup]);

  const menuItems: MenuProps['items'] = menu.map((n) => {
    const label = (id: string) =>
      id === 'deidMessage' && (deidCounts.data?.pending ?? 0) > 0 ? (
        <Badge count={deidCounts.data?.pending} size="small" offset={[10, 0]} overflowCount={99} data-testid="deid-badge">
          {t(`routes:${id}`)}
        </Badge>
      ) : id === 'researchFile' && (isfDot.data ?? 0) > 0 ? (
        <Badge dot offset={[6, 0]} data-testid="isf-dot">
          {t(`routes:${id}`)}
        </Badge>
      ) : (
        t(`routes:${id}`)
      );
    if (n.kind === 'item')
      return {
        key: n.path,
        icon: MENU_ICONS[n.icon] ?? FALLBACK_ICON,
        label: <span data-testid={`menu-${n.id}`}>{label(n.id)}</span>,
      };
    // a closed group shows the ISF dot of an entry inside it, so a site user sees it without opening the group
    const groupKey = `group:${n.id}`;
    const dotInside = !openKeys.includes(groupKey) && (isfDot.data ?? 0) > 0 && n.children.some((c) => c.id === 'researchFile');
    return {
      key: groupKey,
      icon: MENU_ICONS[n.icon] ?? FALLBACK_ICON,
      label: dotInside ? (
        <Badge dot offset={[6, 0]} data-testid="isf-dot-group">
          {t(`routes:group.${n.id}`)}
        </Badge>
      ) : (
        t(`routes:group.${n.id}`)
      ),
      children: n.children.map((c) => ({
        key: c.path,
        label: <span data-testid={`menu-${c.id}`}>{label(c.id)}</span>,
      })),
    };
  });

  const crumbs = route && access ? breadcrumbsFor(route, access, project !== null) : [];
  const crumbTitle = (id: string, isProject?: boolean) => {
    if (isProject && project) return project.no ? `${project.no}-${project.name}` : t('layout:project');
    if (id.startsWith('group.')) return t(`routes:${id}`);
    if (id.startsWith('module.')) {
      const m = tabs.find((x) => `module.${x.no}` === id);
      return m ? t(`layout:modules.${m.key}`) : '';
    }
    return t(`routes:${id}`);
  };

  let page: React.ReactNode;
  if (!decision || decision.kind === 'loading' || decision.kind === 'redirect') page = <PageSpinner />;
  else if (decision.kind === 'forbidden')
    page = (
      <Result
        status="403"
        title={t('common:noPermissionTitle')}
        subTitle={t('common:noPermissionPage')}
        extra={<AdminContact />}
        data-testid="forbidden"
      />
    );
  else page = <Outlet />;

  const year = new Date().getFullYear();
  return (
    <Layout className="esource-shell" data-testid="app-shell" data-login-type={loginType ?? ''}>
      <Header className="esource-header">
        <Link to="/overview" className="esource-brand" data-testid="brand">
          <ProductLogo product={product} />
          <span className="esource-brand-name" data-testid="product-name">
            {t(`common:${product.nameKey}`)}
          </span>
        </Link>
        {project && inProject ? (
          <Tooltip title={t('layout:currentProject')}>
            <span className="esource-project-label" data-testid="project-label">
              {project.no ? `${project.no}-${project.name}` : '…'}
            </span>
          </Tooltip>
        ) : null}
        {project && inProject && project.status === 3 ? (
          <Tooltip title={t('layout:closedProjectHint')}>
            <Tag color="red" data-testid="project-closed" style={{ marginInlineStart: -8 }}>
              {t('layout:closedProject')}
            </Tag>
          </Tooltip>
        ) : null}
        <Menu
          mode="horizontal"
          className="esource-modules"
          selectedKeys={[String(moduleNo)]}
          data-testid="module-tabs"
          items={tabs.map((m) => ({
            key: String(m.no),
            label: <span data-testid={`module-tab-${m.no}`}>{t(`layout:modules.${m.key}`)}</span>,
          }))}
          onClick={({ key }) => {
            const no = Number(key);
            const to = access ? moduleLanding(no, access) : null;
            if (no !== 1) sessionStore.set({ moduleNo: no });
            if (to) void navigate(to);
          }}
        />
        <div className="esource-header-right">
          {canSearch ? <SearchButton onOpen={openSearch} /> : null}
          <EnvSwitch />
          <MessageBadge token={token} />
          <LanguageSwitch />
          <UserMenu
            name={data?.user.name ?? sessionStore.get().user?.name ?? ''}
            imgUrl={data?.user.imgUrl ?? null}
            loginType={loginType}
            onModifyPassword={() => setPwdOpen(true)}
            onFeedback={() => setFeedbackOpen(true)}
          />
        </div>
      </Header>
      <Layout>
        {showSider ? (
          <Sider
            className="esource-sider"
            width={LIMITS.sideBarWidth}
            collapsedWidth={LIMITS.sideBarCollapsedWidth}
            collapsed={collapsed}
            trigger={null}
            collapsible
            // a phone or a narrow window starts with the menu folded (not remembered: the desktop keeps its choice)
            breakpoint="md"
            onBreakpoint={(narrow) => setCollapsed(narrow || readJson('menuCollapsed') === true)}
            data-testid="side-menu"
            data-collapsed={collapsed}
          >
            <div className="esource-sider-inner">
              <Menu
                mode="inline"
                selectedKeys={[selectedKey]}
                openKeys={collapsed ? undefined : openKeys}
                onOpenChange={(k) => setOpenKeys(k)}
                items={menuItems}
                onClick={({ key }) => void navigate(key)}
                style={{ borderInlineEnd: 0, flex: 1, overflowY: 'auto' }}
              />
              <div className="esource-sider-foot">
                <Button
                  type="text"
                  size="small"
                  icon={collapsed ? <MenuUnfoldOutlined /> : <MenuFoldOutlined />}
                  onClick={() => {
                    setCollapsed(!collapsed);
                    writeJson('menuCollapsed', !collapsed);
                  }}
                  aria-label={collapsed ? t('layout:expandMenu') : t('layout:collapseMenu')}
                  data-testid="menu-collapse"
                />
                {!collapsed ? (
                  <Typography.Text type="secondary" className="esource-version" data-testid="version-label">
                    v{version.data?.version ?? APP_VERSION}
                  </Typography.Text>
                ) : null}
              </div>
            </div>
          </Sider>
        ) : null}
        <Layout className="esource-main">
          <Content className="esource-content">
            {route && route.id !== 'overview' ? (
              <div className="esource-page-header" data-testid="page-header">
                <Breadcrumb
                  data-testid="breadcrumb"
                  items={crumbs.map((c, i) => ({
                    key: c.id,
                    title:
                      c.path && i < crumbs.length - 1 ? (
                        <Link to={c.path}>{crumbTitle(c.id, c.project)}</Link>
                      ) : (
                        crumbTitle(c.id, c.project)
                      ),
                  }))}
                />
                <Typography.Title level={4} style={{ margin: '6px 0 0' }}>
                  {t(`routes:${route.id}`)}
                </Typography.Title>
              </div>
            ) : null}
            <div className="esource-page" ref={contentRef} data-testid="page-area" data-route={route?.id ?? ''}>
              {page}
              <Watermark targetRef={contentRef} lines={lines} />
            </div>
          </Content>
          {!project || !inProject ? (
            <Footer className="esource-footer" data-testid="footer">
              © {year} eSource · {t('layout:footer')}
            </Footer>
          ) : null}
        </Layout>
      </Layout>
      <ProgressPanel loginType={loginType} projectId={inProject ? (project?.id ?? null) : null} />
      <Suspense fallback={null}>
        {data && pwdUsed ? (
          <ModifyPasswordDialog open={pwdOpen} userId={data.user.id} onClose={() => setPwdOpen(false)} />
        ) : null}
        {feedbackUsed ? <FeedbackDialog open={feedbackOpen} onClose={() => setFeedbackOpen(false)} /> : null}
        {canSearch && searchUsed ? (
          <SearchPalette open={searchOpen} onClose={() => setSearchOpen(false)} />
        ) : null}
      </Suspense>
      <span hidden data-testid="current-env">
        {env}
      </span>
    </Layout>
  );
}
