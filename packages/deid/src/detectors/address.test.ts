import { describe, expect, it } from 'vitest';
import { detectAddresses } from './address.js';
import { ctx, texts } from './test-context.js';

describe('addresses', () => {
  it('finds Chinese addresses from province to room', () => {
    expect(texts(detectAddresses(ctx('家庭住址：北京市朝阳区建国路88号院3号楼2单元501室')))).toEqual(['北京市朝阳区建国路88号院3号楼2单元501室']);
    expect(texts(detectAddresses(ctx('患者家住浙江省杭州市西湖区文三路478号，近来')))).toEqual(['浙江省杭州市西湖区文三路478号']);
    expect(texts(detectAddresses(ctx('现住址：河南省周口市郸城县李楼乡张庄村三组')))).toEqual(['河南省周口市郸城县李楼乡张庄村三组']);
    expect(texts(detectAddresses(ctx('家庭住址：天津市南开区鞍山道340号')))).toEqual(['天津市南开区鞍山道340号']);
    // a housing estate between the street number and the building
    expect(texts(detectAddresses(ctx('现住址：四川省成都市武侯区春熙路375号金色家园17号楼3单元1505室')))).toEqual(['四川省成都市武侯区春熙路375号金色家园17号楼3单元1505室']);
    // a street whose name ends in a unit character (科苑路), and a labelled value up to the next field
    expect(texts(detectAddresses(ctx('现住址：上海市浦东新区张江镇科苑路399号  电话：')))).toEqual(['上海市浦东新区张江镇科苑路399号']);
    expect(texts(detectAddresses(ctx('患者家住上海市浦东新区科苑路399号，近来')))).toEqual(['上海市浦东新区科苑路399号']);
    expect(detectAddresses(ctx('住址：不详；地址：同上'))).toEqual([]);
  });

  it('finds English street addresses with unit and city line', () => {
    expect(texts(detectAddresses(ctx('Lives at 1755 Nelson Mandela Drive, Apt. 5, Springfield, IL 62704.')))).toContain(
      '1755 Nelson Mandela Drive, Apt. 5, Springfield, IL 62704',
    );
    expect(texts(detectAddresses(ctx('ship to 230 Wit Rd please')))).toEqual(['230 Wit Rd']);
  });

  it('leaves anatomy, wards and lab lines alone', () => {
    for (const t of ['肝区叩痛阴性，右上肺区可闻及湿啰音', '上消化道出血，左下肺区呼吸道感染', '胆道术后，肝区无压痛', '心内科3病区12床', '血红蛋白 138 g/L 参考范围 130-175', 'Given 2 Tablets by mouth', 'Room air, 98% SpO2', 'IP address 58.74.121.78 blocked', 'email address: none'])
      expect(detectAddresses(ctx(t)), t).toEqual([]);
  });
});
