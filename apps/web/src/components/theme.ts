/** antd theme of the product (kept free of antd imports so that the entry chunk does not load antd). */
export const THEME = {
  token: { colorPrimary: '#1668dc', borderRadius: 6, fontSize: 14 },
  components: {
    Layout: { headerBg: '#ffffff', headerHeight: 56, headerPadding: '0 16px', siderBg: '#ffffff' },
  },
};
