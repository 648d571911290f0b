export { FormRenderer, type FormRendererProps } from './form-renderer';
export { FieldControl } from './field-control';
export { useCrfForm } from './use-crf-form';
export {
  applyConditions,
  fieldError,
  isEmptyValue,
  labelFor,
  roundTo,
  shownVariables,
  validateForm,
  type FieldError,
  type FieldErrors,
  type RenderableForm,
} from './renderer-logic';
