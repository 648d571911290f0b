import type { ReactNode } from 'react';
import {
  AlignLeftOutlined,
  CalendarOutlined,
  CheckSquareOutlined,
  CheckCircleOutlined,
  ClockCircleOutlined,
  DownSquareOutlined,
  FieldNumberOutlined,
  FontSizeOutlined,
  PaperClipOutlined,
  TableOutlined,
} from '@ant-design/icons';
import type { ComponentType } from '../designer-state';

export const TYPE_ICONS: Record<ComponentType, ReactNode> = {
  text: <FontSizeOutlined />,
  textarea: <AlignLeftOutlined />,
  number: <FieldNumberOutlined />,
  date: <CalendarOutlined />,
  datetime: <ClockCircleOutlined />,
  radio: <CheckCircleOutlined />,
  checkbox: <CheckSquareOutlined />,
  select: <DownSquareOutlined />,
  file: <PaperClipOutlined />,
  table: <TableOutlined />,
};
