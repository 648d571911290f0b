import { describe, expect, it } from 'vitest';
import { detectHospitals } from './hospital.js';
import { ctx, texts } from './test-context.js';

describe('hospital names', () => {
  it('finds Chinese hospital names without the words before them', () => {
    expect(texts(detectHospitals(ctx('患者于上海交通大学医学院附属瑞金医院就诊')))).toEqual(['上海交通大学医学院附属瑞金医院']);
    expect(texts(detectHospitals(ctx('北京协和医院检验科')))).toEqual(['北京协和医院']);
    expect(texts(detectHospitals(ctx('转至郸城县人民医院')))).toEqual(['郸城县人民医院']);
    // a report title: the name opens the line, whatever the segmenter tags its first word
    expect(texts(detectHospitals(ctx('示范市人民医院检验报告单\n姓名：王建国')))).toEqual(['示范市人民医院']);
    expect(texts(detectHospitals(ctx('检验科\n示范市人民医院')))).toEqual(['示范市人民医院']);
  });

  it('finds English hospital names', () => {
    expect(texts(detectHospitals(ctx("Discharged from St. Mary's Hospital to home.")))).toEqual(["St. Mary's Hospital"]);
    expect(texts(detectHospitals(ctx('Transferred to Massachusetts General Hospital.')))).toEqual(['Massachusetts General Hospital']);
    // a letterhead in capitals
    expect(texts(detectHospitals(ctx('NORTHWESTERN MEMORIAL HOSPITAL\nDischarge Summary')))).toEqual(['NORTHWESTERN MEMORIAL HOSPITAL']);
  });

  it('leaves generic words alone', () => {
    for (const t of ['出院后至医院复查', '我院检验中心', 'Hospital course: uneventful.', 'returned to the clinic', 'Outpatient Clinic Note', 'EMERGENCY CLINIC', 'Seen in the Emergency Clinic today']) expect(detectHospitals(ctx(t)), t).toEqual([]);
  });
});
