/** Mapping rule evaluation: matching, window selection, UCUM conversion and coercion to the item's type. */
export * from './evaluate';
export { compileExpression, expressionValue, type CompiledExpression, type CompileResult, type ExpressionValue } from './fhirpath';
export { convertUnit, isUcumUnit, type UnitConversion } from './ucum';
