import { useState } from 'react';
import { Button, Card, Col, Empty, Flex, Input, Pagination, Row, Skeleton, Space, Tag, Typography } from 'antd';
import { PlusOutlined, ProjectOutlined, RightOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { can, LIMITS } from '@esource/shared';
import { ProjectDialog } from '../../project-manage';
import { useAccess, useSession } from '../../session';
import { projectsPageQuery, type ProjectRow } from '../api/projects-api';
import { tablePagination } from '../../../lib/pagination';

const STATUS_COLOR: Record<number, string> = { 0: 'default', 1: 'green', 2: 'orange', 3: 'red' };

/** Home /overview (spec §2): the projects the user belongs to in this environment, to enter one. */
export default function OverviewPage() {
  const { t } = useTranslation('projects');
  const navigate = useNavigate();
  const env = useSession((s) => s.env);
  const token = useSession((s) => s.token);
  const listPage = useSession((s) => s.listPage);
  const [keyword, setKeyword] = useState('');
  const [page, setPage] = useState<number>(listPage ?? LIMITS.firstPage);
  const [pageSize, setPageSize] = useState<number>(LIMITS.defaultPageSize);
  const q = useQuery(projectsPageQuery({ pageNumber: page, pageSize, keyword, env, token }));

  const enter = (p: ProjectRow) => void navigate(`/project?proId=${p.id}`);
  // creating a project is a system permission (project:info:add), so it is offered here, before any project is open
  const access = useAccess();
  const canCreate = Boolean(access && can(access.pms, { anyOf: ['project:info:add'] }));
  const [creating, setCreating] = useState(false);

  return (
    <div data-testid="overview-page">
      <div style={{ display: 'flex', alignItems: 'center', gap: 16, marginBottom: 16, flexWrap: 'wrap' }}>
        <Typography.Title level={4} style={{ margin: 0 }}>
          {t('myProjects')}
        </Typography.Title>
        <Tag color="blue">{t('envTag', { env })}</Tag>
        <span style={{ flex: 1 }} />
        <Input.Search
          allowClear
          placeholder={t('searchPlaceholder')}
          style={{ width: 300 }}
          onSearch={(v) => {
            setKeyword(v);
            setPage(1);
          }}
          data-testid="overview-search"
        />
        {canCreate ? (
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)} data-testid="overview-new-project">
            {t('newProject')}
          </Button>
        ) : null}
      </div>
      {creating ? (
        <ProjectDialog
          mode="create"
          onClose={() => setCreating(false)}
          onSaved={(p) => {
            setCreating(false);
            void navigate(`/project?proId=${p.id}`);
          }}
        />
      ) : null}
      {q.isPending ? (
        <Skeleton active paragraph={{ rows: 6 }} />
      ) : q.isError ? (
        <Empty description={t('loadFailed')} />
      ) : q.data.content.length === 0 ? (
        <Card>
          <Empty description={keyword ? t('noMatch') : t('noProjects', { env })} />
        </Card>
      ) : (
        <>
          <Row gutter={[16, 16]}>
            {q.data.content.map((p) => (
              <Col key={p.id} xs={24} sm={12} xl={8} xxl={6}>
                <Card
                  hoverable
                  onClick={() => enter(p)}
                  data-testid="project-card"
                  styles={{ body: { padding: 20 } }}
                >
                  {/* minWidth 0 and overflowWrap: a long unbroken name breaks into two lines and an ellipsis
                      inside the card instead of running out of it */}
                  <Flex align="start" justify="space-between" gap={8}>
                    <Flex align="start" gap={8} style={{ minWidth: 0, flex: 1 }}>
                      <ProjectOutlined style={{ fontSize: 22, color: '#1668dc', marginTop: 2 }} />
                      <div style={{ minWidth: 0, flex: 1 }}>
                        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                          {p.no}
                        </Typography.Text>
                        <Typography.Title
                          level={5}
                          style={{ margin: '2px 0 8px', overflowWrap: 'anywhere' }}
                          ellipsis={{ rows: 2, tooltip: p.name }}
                          data-testid="project-card-name"
                        >
                          {p.name}
                        </Typography.Title>
                      </div>
                    </Flex>
                    <RightOutlined style={{ color: 'rgba(0,0,0,.25)', marginTop: 6 }} />
                  </Flex>
                  <Space size={[4, 4]} wrap>
                    <Tag color={STATUS_COLOR[p.status] ?? 'default'}>
                      {t(`status.${p.status}`, { defaultValue: String(p.status) })}
                    </Tag>
                    {p.scene ? <Tag>{t(`scene.${p.scene}`, { defaultValue: String(p.scene) })}</Tag> : null}
                    {p.role ? <Tag color="geekblue">{p.role}</Tag> : null}
                  </Space>
                </Card>
              </Col>
            ))}
          </Row>
          <div style={{ display: 'flex', justifyContent: 'flex-end', marginTop: 16 }}>
            <Pagination
              {...tablePagination({
                page,
                pageSize,
                total: q.data.totalCount,
                showTotal: (n) => t('total', { count: n }),
                onChange: (p, s) => {
                  setPage(p);
                  setPageSize(s);
                },
              })}
            />
          </div>
        </>
      )}
    </div>
  );
}
