// Chinese surnames: the common single-character ones (about 99 % of the population) and the compound ones.
const SINGLE =
  '王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤' +
  '常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏' +
  '席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝官封谈匡鞠惠荆乐冀郁胥南班储原栗燕楚鄢劳谌奚皮粟冼蔺楼盘满闻位厉伊仝区郜海阚花权强帅屠豆朴盖练廉禹井祖漆巴丰支卿国狄平' +
  '计索宣晋相初门云容敬来扈晁芮都普阙浦戈伏鹿薄邸雍辜羊阿乌母裘亓修邰赫杭况那宿鲜印逯隆茹诸战慕危玉银亢嵩帖竺';
const COMPOUND = [
  '欧阳', '司马', '上官', '诸葛', '东方', '皇甫', '尉迟', '公孙', '慕容', '长孙', '宇文', '司徒', '夏侯', '轩辕', '令狐',
  '钟离', '端木', '独孤', '南宫', '西门', '百里', '呼延', '万俟', '澹台', '公冶', '太叔', '申屠', '闻人', '濮阳', '淳于',
  '单于', '拓跋', '赫连', '左丘', '东郭', '第五', '司空', '乐正', '谷梁', '梁丘', '亓官', '羊舌', '微生', '公羊', '段干',
];
const SINGLE_SET = new Set(SINGLE);

/** Length of the Chinese surname that text starts with at index i (2 for compound, 1 for single), or 0. */
export function surnameLength(text: string, i: number): number {
  if (COMPOUND.includes(text.slice(i, i + 2))) return 2;
  return SINGLE_SET.has(text[i] ?? '') ? 1 : 0;
}
