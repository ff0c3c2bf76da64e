import { describe, expect, it } from 'vitest';
import { normalizeColor, textColorFor } from '../../src/main/service/areas/labels/colors';

describe('label colors', () => {
  it('keeps #RGB and #RRGGBB as given and turns CSS names into hex', () => {
    expect(normalizeColor('#abc')).toBe('#abc');
    expect(normalizeColor('#A1B2C3')).toBe('#A1B2C3');
    expect(normalizeColor('Red')).toBe('#FF0000');
    expect(normalizeColor('rebeccapurple')).toBe('#663399');
  });

  it('refuses anything else', () => {
    for (const bad of ['#12', '#1234', '#12345g', 'notacolor', '', '123456']) expect(normalizeColor(bad)).toBeNull();
  });

  it('picks dark text when R+G+B is above 500, white otherwise', () => {
    expect(textColorFor('#FF0000')).toBe('#FFFFFF');
    expect(textColorFor('#FFFFFF')).toBe('#333333');
    expect(textColorFor('#eee')).toBe('#333333');
    expect(textColorFor('#AAAA55')).toBe('#FFFFFF'); // 170 + 170 + 85 = 425
    expect(textColorFor('#FAFA00')).toBe('#FFFFFF'); // 250 + 250 + 0 = 500, not above
    expect(textColorFor('#FAFA01')).toBe('#333333'); // 501
  });
});
