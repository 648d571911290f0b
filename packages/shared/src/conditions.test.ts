import { describe, expect, it } from 'vitest';
import { compileCondition, conditionError, isShown } from './conditions';

describe('display conditions', () => {
  it('evaluates comparisons and logic over item values', () => {
    const c = compileCondition('sex == "2" and age >= 18');
    expect(c.variables.sort()).toEqual(['age', 'sex']);
    expect(c.evaluate({ sex: '2', age: 20 })).toBe(true);
    expect(c.evaluate({ sex: '1', age: 20 })).toBe(false);
    expect(c.evaluate({})).toBe(false);
  });
  it('offers has(), empty() and count() for choices', () => {
    expect(isShown('has(symptoms, "fever")', { symptoms: ['cough', 'fever'] })).toBe(true);
    expect(isShown('has(symptoms, "fever")', { symptoms: ['cough'] })).toBe(false);
    expect(isShown('not empty(other)', { other: 'x' })).toBe(true);
    expect(isShown('empty(other)', {})).toBe(true);
    expect(isShown('count(symptoms) > 1', { symptoms: ['a', 'b'] })).toBe(true);
  });
  it('no condition means shown; a broken one is reported and hides nothing silently', () => {
    expect(isShown(undefined, {})).toBe(true);
    expect(isShown('  ', {})).toBe(true);
    expect(conditionError('sex ==')).toMatch(/.+/);
    expect(conditionError('sex == "1"')).toBeNull();
  });
  it('cannot reach anything outside the values', () => {
    expect(isShown('constructor', {})).toBe(false);
    expect(isShown('process.exit(1)', {})).toBe(false);
    expect(isShown('constructor.constructor("return 1")()', {})).toBe(false);
  });
});
