/** The part of @lhncbc/ucum-lhc (no bundled types) that the mapping code uses. */
declare module '@lhncbc/ucum-lhc' {
  export interface UcumConvertResult {
    status: 'succeeded' | 'failed' | 'error';
    toVal: number | null;
    msg: string[];
  }
  export interface UcumValidateResult {
    status: 'valid' | 'invalid' | 'error';
    ucumCode: string | null;
    msg: string[];
  }
  export interface UcumLhcUtilsInstance {
    convertUnitTo(fromUnitCode: string, fromVal: number, toUnitCode: string, options?: { suggest?: boolean; molecularWeight?: number | null }): UcumConvertResult;
    validateUnitString(uStr: string, suggest?: boolean, valConv?: 'validate' | 'convert'): UcumValidateResult;
  }
  export const UcumLhcUtils: { getInstance(): UcumLhcUtilsInstance };
  const ucum: { UcumLhcUtils: { getInstance(): UcumLhcUtilsInstance } };
  export default ucum;
}
