"""Packaged word lists the detectors use: surnames (Faker's zh_CN list plus the compound ones it lacks), their
pinyin, the gazetteer of Chinese provinces, cities and counties (JioNLP's), cue words, and words that look like names
but are not (eponyms)."""

from __future__ import annotations

import contextlib
import io
import re
from functools import cache

from climedbench.deid import tables

# Common surnames Faker's zh_CN list lacks (闫, 肖, ...), added to it.
EXTRA_SURNAMES = ("闫肖薛余雷钟龙唐郭尹邵熊孟秦阎潘杜戴夏汪田任姜范方石姚谭廖邹陆金魏贾崔康毛邱江史顾侯万段钱汤黎易常武乔贺"
                  "赖龚文庞樊兰殷施陶洪翟安颜倪严牛温芦季俞章鲁葛伍韦申尤毕聂丁焦向柳邢路岳齐梅莫庄辛管祝左涂谷祁时舒耿牟卜"
                  "詹关苗凌费纪靳盛童欧甄项曲成游阳裴席卫查屈鲍位覃霍翁隋植甘景薄单包司柏宁柯阮桂闵解强柴华车冉房边辜吉饶"
                  "刁瞿戚丘古米池滕晋苑邬臧畅宫来苟全褚廉简娄盖符奚木穆党燕郎邸冀谈姬屠连郜晏栾郁商蒙计喻揭窦迟宇敖糜鄢冷"
                  "卓花仇艾蓝都巩井练仲乐虞卞封竺冼原官衣楚佟栗匡宗应巫鞠桑荆谌银扬明沙伏岑习胥保和蔺付占渠逄郗")
# Surnames that are also everyday function words (由急诊科, 于是, 向上): a name starting with one needs a strong cue.
FUNCTION_SURNAMES = frozenset("由于向和与从在对把被给以其之是有无不也都就才还又再将所并而但或即因自到至往同跟及为")
COMPOUND_SURNAMES = (
    "欧阳", "司马", "上官", "诸葛", "东方", "皇甫", "尉迟", "公孙", "慕容", "长孙", "宇文", "司徒", "夏侯", "轩辕",
    "令狐", "钟离", "端木", "南宫", "西门", "独孤", "百里", "呼延", "澹台", "公冶", "宗政", "濮阳", "太史", "申屠",
    "闻人", "万俟", "赫连", "东郭", "拓跋", "司空", "第五", "左丘", "梁丘", "鲜于", "闾丘", "谷梁", "段干", "亓官",
)

# Words before a name: the patient, relatives, staff, signatures.
ZH_NAME_BEFORE: tuple[str, ...] = (
    "患者", "病人", "患儿", "病员", "姓名", "名字", "家属", "联系人", "陪同人", "陪护", "监护人", "代理人", "委托人", "签字人",
    "记录人", "记录者", "记录", "书写者", "主治医师", "主治医生", "住院医师", "主任医师", "副主任医师", "经治医师", "经治医生",
    "上级医师", "管床医师", "管床医生", "值班医师", "值班医生", "会诊医师", "责任护士", "护士", "医师签名", "医生签名", "签名",
    "审核", "审核者", "报告医师", "报告者", "检查者", "操作者", "术者", "主刀", "助手", "麻醉师", "麻醉医师", "一助", "二助",
    "妻子", "丈夫", "其妻", "其夫", "爱人", "儿子", "女儿", "之子", "之女", "长子", "次子", "长女", "次女", "父亲", "母亲",
    "其父", "其母", "其子", "其女", "哥哥", "姐姐", "弟弟", "妹妹", "孙子", "孙女", "外孙", "外孙女", "儿媳", "女婿",
    "老伴", "朋友", "同事", "邻居", "介绍人", "转诊医生", "主管医生", "主管医师", "医生", "医师", "大夫", "主任", "教授",
    "患方", "本人", "申请人", "受检者", "受检人", "献血者", "供者", "受者", "社工", "护工", "营养师", "康复师", "治疗师",
    "心理咨询师", "器械护士", "巡回护士", "助产士", "接产者", "司机", "担保人", "经办人", "收费员", "药师", "技师",
    "孙女婿", "外甥", "侄子", "侄女", "舅舅", "姑姑", "叔叔", "阿姨", "伯伯", "嫂子", "姐夫", "妹夫", "婆婆", "公公",
    "岳父", "岳母", "丈人", "继父", "继母", "养父", "养母", "驾驶员", "肇事者", "辅导员", "班主任", "导师", "同学",
    "室友", "房东", "雇主", "老板", "队长", "村医", "村长", "联络人", "委托", "证明人", "见证人", "公证人", "律师",
    # Other names of the same person, and more people a note names (staff who sign, visitors, police, interpreters).
    "中文名", "英文名", "化名", "真实姓名", "真名", "乳名", "小名", "大名", "原名", "曾用名", "登记名", "别名", "昵称",
    "参加人员", "参会人员", "出席人员", "主持人", "会诊者", "会诊医生", "报告人", "上报人", "处理人", "经办人", "经办民警",
    "民警", "护理员", "来访者", "死者", "伤者", "产妇", "孕妇", "女方", "男方", "家长", "曾孙", "曾孙女", "工友", "翻译",
    "随车医生", "抢救医师", "评估护士", "随访护士", "总检医生", "医生签字", "医师签字", "操作医师", "送检医生", "送检医师",
    "接诊医生", "接诊医师", "门诊医生", "交警", "其姐", "其兄", "其弟", "其妹", "其妻", "其夫", "审核医师", "复核人", "核对人", "执行人", "交班人", "接班人", "签字医生",
    # Grandparents, carers, partners, and the people of forms, claims and call logs.
    "爷爷", "奶奶", "外公", "外婆", "姥姥", "姥爷", "保姆", "男友", "女友", "男朋友", "女朋友", "孩子", "亲属", "驾驶人",
    "收件人", "被保险人", "投保人", "受益人", "居民", "来电者", "调度员", "调解员", "记录员", "编码员", "登记员", "业务员",
    "督导员", "配血者", "检验者", "检验员", "主检医生", "新生儿", "随访人", "陪护人", "签约医生", "通知人", "测评师",
    "叫", "名叫", "妻",
    # Staff by their shift or rank (二线, 听班, 护士长, 进修医师), the people of a school, a workplace or a dispute, and
    # the patient's full or new name (全名, 取名).
    "护士长", "一线", "二线", "三线", "听班", "总值班", "住院总", "进修医师", "进修医生", "规培医师", "规培医生", "实习医师",
    "实习医生", "导医", "保健医", "保健医生", "校医", "安全员", "配偶", "生母", "生父", "开单医生", "开单医师", "鉴定人",
    "被鉴定人", "调查人", "全名", "取名", "名为", "查明为", "证实为", "核实为",
    # People of a workplace or a dispute named in passing (班长, 人事, 法定代表人).
    "班长", "人事", "法定代表人", "法人代表",
    # A son or a daughter in Cantonese (個仔, 個女).
    "个仔", "个女",
    # People around an accident, a trip or a form, and staff by a rank or a post not listed above.
    "目击者", "警员", "经办警员", "组长", "责任组长", "代办人", "户名", "持卡人", "院方", "核对发药",
    # A certificate's opening (兹证明 … 同志, 兹有我村村民 …).
    "兹证明", "兹有", "今有",
)
# Relatives by their kin word with 其 / 表 / 堂 before it (其孙, 其表姐, 堂兄), spouses as people call them (老婆, 老公,
# 媳妇), and people around an accident, a trip or a form (目击者, 导游, 警员, 组长, 代办人, 户名 without a colon).
_KIN_BASES = ("父", "母", "子", "女", "兄", "弟", "姐", "妹", "孙", "孙子", "孙女", "孙媳", "夫", "妻", "侄子", "侄女",
              "外孙", "外孙女", "儿媳", "女婿", "哥", "嫂", "姐夫", "妹夫", "舅", "姨", "姑", "叔", "伯", "侄")
ZH_KIN = tuple(dict.fromkeys((
    *("其" + b for b in _KIN_BASES),
    *(p + b for p in ("表", "堂") for b in ("哥", "姐", "弟", "妹", "兄", "嫂", "叔", "侄", "姐夫", "妹夫")),
    "丈夫", "妻子", "老伴", "爱人", "配偶", "老婆", "老公", "媳妇", "儿子", "女儿", "父亲", "母亲", "哥哥", "姐姐",
    "弟弟", "妹妹", "孙子", "孙女", "孙媳", "孙媳妇", "孙女婿", "外孙", "外孙女", "儿媳", "儿媳妇", "女婿", "侄子",
    "侄女", "外甥", "外甥女", "舅舅", "姑姑", "叔叔", "阿姨", "伯伯", "嫂子", "姐夫", "妹夫", "岳父", "岳母", "公公",
    "婆婆", "继父", "继母", "养父", "养母", "爷爷", "奶奶", "外公", "外婆", "姥姥", "姥爷", "男友", "女友", "未婚夫",
    "未婚妻", "室友", "工友", "同事", "朋友", "邻居", "同学", "保姆", "护工", "导游", "翻译员", "村医",
    # Children by their order of birth, siblings of the same parents (长子, 幼女, 长媳, 胞兄), paid carers; not 次子 /
    # 次女 (再次|子宫).
    *(o + b for o in ("长", "幼") for b in ("子", "女", "媳", "婿")), "胞兄", "胞弟", "胞姐", "胞妹", "钟点工",
    # The relative of someone named before (申请人之父, 患者之子), the patient's own words (我妈, 我老公), contacts and
    # managers named in passing (联系人, 项目经理).
    "之父", "之母", "之子", "之女", "之妻", "之夫", "我妈", "我爸", "我老婆", "我老公", "我爱人", "太太", "家属",
    "患者家属", "联系人", "经理", "项目经理",
)))
ZH_NAME_BEFORE += tuple(w for w in ZH_KIN if w not in ZH_NAME_BEFORE)
# Words that are cues for a name only before a colon (报告：蓝海, but 报告未见异常).
ZH_NAME_BEFORE_COLON = (
    "报告", "复核", "审核", "调配", "核对", "接收", "转出", "转入", "巡回", "器械", "参会", "参加", "主持", "经办", "接诊",
    "签字", "户名", "开户名", "持卡人", "收款人", "账户名", "检验", "配药", "执行", "通知", "上级", "交班", "接班",
    "对象", "随访对象", "名单", "儿童",
)
# Words after a name: titles and roles.
ZH_NAME_AFTER = (
    "医生", "医师", "大夫", "主任", "副主任", "教授", "院长", "护士长", "护士", "护师", "药师", "技师", "老师", "先生",
    "女士", "同志", "师傅", "阿姨", "大爷", "奶奶", "爷爷", "小姐", "主治", "博士", "同学", "警官", "书记", "经理", "律师",
    "秘书", "老太", "大妈", "大娘", "大叔", "大姐", "住院医师", "住院医生", "规培医师", "进修医师",
)
# Characters that end a given name: what follows a name in a note, never its second given character.
ZH_AFTER_NAME_CHARS = set(
    "因于自诉入出现经在的为是今昨前后突反主男女，,。.、；;：:（()）0123456789０１２３４５６７８９岁年月日等及和与同也都已"
    "将被把对向给让说称述告之行来去到至由从以而但且或并即又再还就才才共约达了着过吗呢吧啊 \t\n\r、等诊治病史"
    "携陪同签字确认知情拒绝要求表示同意述说诉称患有系既往无有否近周前左右上下次例位名个项"
)
EN_TITLES = r"(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Professor|Nurse|Sister|Rev|Sr|Jr)\.?"
EN_NAME_CUES = (
    r"patient(?:'s)?\s+name", r"name", r"patient", r"pt", r"attending(?:\s+physician)?", r"resident", r"physician",
    r"surgeon", r"provider", r"referring\s+(?:physician|provider|doctor)", r"primary\s+care\s+(?:physician|provider)",
    r"pcp", r"signed(?:\s+by)?", r"electronically\s+signed\s+by", r"dictated\s+by", r"transcribed\s+by",
    r"seen\s+by", r"cc", r"contact", r"emergency\s+contact", r"next\s+of\s+kin", r"nok", r"guardian", r"wife",
    r"husband", r"son", r"daughter", r"mother", r"father", r"sister", r"brother", r"spouse", r"partner",
    r"accompanied\s+by", r"interpreter", r"nurse", r"rn", r"np", r"pa", r"md", r"guarantor", r"counselor",
    r"counsellor", r"chaplain", r"social\s+worker", r"case\s+manager", r"therapist", r"pharmacist", r"dietitian",
    r"scribe", r"witness", r"poa", r"health\s+care\s+proxy", r"hcp", r"caregiver", r"neighbor", r"friend",
    r"discussed\s+with", r"spoke\s+with", r"d/w", r"cosigned\s+by", r"reviewed\s+by", r"verified\s+by",
    r"a/p", r"met\s+with", r"communicated\s+to", r"called", r"paged", r"notified",
)
# Relatives, carers and staff named right after the word, without a colon (husband Vikram, RN Priscilla).
EN_KIN_CUES = ("(?i:husband|wife|son|daughter|daughter-in-law|son-in-law|mother|father|mom|mum|dad|sister|brother|niece|"
               "nephew|aunt|uncle|grandson|granddaughter|grandmother|grandfather|cousin|partner|boyfriend|girlfriend|"
               "fianc[ée]e?|spouse|friend|neighbou?r|roommate|caregiver|guardian|sponsor|doula|interpreter|RN|LPN|CNA|"
               "nurse|aide|chaplain|social\\s+worker|case\\s+manager|staffed\\s+with|discussed\\s+with|spoke\\s+with|"
               "signed\\s+out\\s+to|report\\s+to(?:\\s+day|\\s+night)?\\s+RN|receiving\\s+nurse|brother-in-law|sister-in-law)")
# Words that follow a relative or "Pt" and are not a name (son Is here, daughter Has questions).
EN_COMMON_WORDS = frozenset((
    "is", "has", "was", "were", "will", "and", "at", "to", "in", "on", "for", "reports", "states", "called", "says",
    "agrees", "present", "here", "there", "also", "not", "who", "which", "that", "this", "the", "a", "an", "of", "with",
    "via", "by", "from", "notified", "aware", "updated", "requested", "asked", "wants", "prefers", "brought", "denies",
    "feels", "can", "cannot", "may", "would", "should", "did", "does", "had", "been", "being", "are", "be", "all",
    "financial", "services", "access", "relations", "experience", "safety", "advocate", "transport", "education",
))
EN_CREDENTIALS = r"(?:MD|M\.D\.|DO|D\.O\.|RN|NP|PA|PA-C|PhD|DDS|PharmD|MBBS|FRCP|MSN|BSN|CNM|CRNA|LPN)"
# Capitalised words that precede a medical term rather than being a person: eponyms keep their names.
EPONYM_FOLLOWERS = (
    "syndrome", "disease", "sign", "signs", "test", "reflex", "score", "scale", "criteria", "classification",
    "phenomenon", "triad", "law", "fracture", "procedure", "operation", "maneuver", "manoeuvre", "position",
    "tube", "catheter", "forceps", "method", "technique", "lymphoma", "sarcoma", "tumor", "tumour", "palsy",
    "ulcer", "node", "nodes", "cell", "cells", "body", "bodies", "disorder", "anomaly", "malformation", "stage",
    "staging", "grade", "index", "equation", "formula", "rule", "rules", "murmur", "incision", "hernia", "cyst",
    "diverticulum", "encephalopathy", "phenomenon", "spots", "nodules", "lines", "angle", "space", "canal",
    "duct", "gland", "glands", "loop", "ligament", "muscle", "vein", "artery", "valve", "test's", "'s",
    "breathing", "respiration", "respirations", "pulse", "point", "body", "palsy", "nodule", "neuroma", "lesion",
    "hypothesis", "tear", "bundle", "block", "classification", "criteria", "reaction", "agar", "stain",
    # Instruments, sutures and bandages named after a surgeon (Metzenbaum scissors, Lembert sutures, Kelly clamp).
    "scissors", "suture", "sutures", "stitch", "stitches", "clamp", "clamps", "retractor", "retractors", "bandage",
    "tourniquet", "drain", "elevator", "rongeur", "needle", "wire", "wires", "pin", "pins", "approach", "closure",
    "dressing", "pouch", "stoma", "bag", "mask", "blade", "knot", "knots",
)
# Capitalised words never taken as names on their own (English notes capitalise section titles and drugs).
# Two-letter clinical abbreviations that notes write with dots, never a person's initials (C.O. 5.2, H.O. aware,
# back from the O.R., R.T. in to suction, 89 Y.O. woman, in the A.M.).
EN_DOTTED_ABBREVIATIONS = frozenset((
    "am", "pm", "co", "ci", "ho", "or", "rt", "rn", "iv", "pt", "ot", "bs", "uo", "is", "dl", "yo", "td", "hl",
    "po", "pr", "ng", "og", "et", "gi", "gu", "er", "ed", "hr", "bp", "io", "md", "np", "pa", "do", "ob", "im", "sq",
    "sc", "vs", "cv", "os", "od", "ou", "ns", "lr", "fs", "ss", "bm", "dc", "cp", "nc", "ra", "ua", "sr", "tv", "ef",
    "lpn", "cna", "prn", "npo", "aka", "eg", "ie", "mr", "ms", "tx", "dx", "hx", "sx", "rx", "fx", "pe", "ct"))


EN_NOT_NAMES = frozenset(w.lower() for w in (
    "Patient", "Name", "History", "Present", "Illness", "Physical", "Exam", "Examination", "Assessment", "Plan",
    "Impression", "Findings", "Discharge", "Admission", "Summary", "Diagnosis", "Diagnoses", "Medications",
    "Allergies", "Hospital", "Course", "Follow", "Up", "Labs", "Vitals", "Social", "Family", "Chief", "Complaint",
    "Procedure", "Procedures", "Consult", "Consultation", "Note", "Notes", "Report", "Review", "Systems",
    "Mr", "Mrs", "Ms", "Dr", "Miss", "MD", "RN", "NP", "PA", "The", "He", "She", "They", "His", "Her", "No", "Yes",
    "Day", "Date", "Time", "Attending", "Resident", "Signed", "Emergency", "Department", "Contact", "Service",
    # Eponyms that are rarely surnames (those that are, Wilson or Murphy, are told apart by what follows them).
    "Parkinson", "Alzheimer", "Cushing", "Addison", "Crohn", "Hodgkin", "Hashimoto", "Kawasaki", "Guillain",
    "Barre", "Barré", "Babinski", "Glasgow", "Apgar", "Huntington", "Raynaud", "Sjogren", "Sjögren", "Marfan",
    "Wernicke", "Korsakoff", "Tourette", "Kaposi", "Cheyne", "Kernig", "Brudzinski", "Trendelenburg", "Valsalva",
    "Foley", "Ganz", "Whipple", "Nissen", "Roux", "Billroth", "Gleason", "Breslow", "Ranson", "Killip",
    "Mallory", "Meckel", "Zenker", "Virchow", "Bence", "Sternberg", "Epstein", "Gram", "Ziehl", "Neelsen",
    "Papanicolaou", "Kussmaul", "Lewy", "Korotkoff", "Osler", "Heberden", "Bouchard", "Bragard", "Lasegue",
    # Specialties and services (spaCy sometimes takes them for people).
    "Neurology", "Cardiology", "Surgery", "Orthopedic", "Orthopedics", "Ortho", "Trauma", "Medicine", "Oncology",
    "Radiology", "Pediatrics", "Psychiatry", "Urology", "Nephrology", "Gastroenterology", "Pulmonology",
    "Endocrinology", "Dermatology", "Rheumatology", "Hematology", "Cardiothoracic", "Vascular", "Internal",
    "General", "Ward", "Unit", "Clinic", "Team", "Nursing", "Pharmacy", "Anesthesia", "Obstetrics", "Gynecology",
    "DOB", "MRN", "SSN", "Age", "Sex", "Acct", "CSN", "Room", "Bed", "Adm", "PCP", "Attn", "FIN", "Ref", "Tel",
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "January", "February", "March",
    "April", "May", "June", "July", "August", "September", "October", "November", "December",
    # Anatomy spaCy takes for a first name at a sentence's start ("Fascia iliaca block was performed").
    "Fascia", "Iliaca", "Vena", "Cava", "Bundle", "Sinus", "Vagus", "Ligamentum", "Corpus", "Pars", "Bursa",
))
# Endings of generic drug names (INN stems): a single capitalised word with one is a drug at a sentence's start
# (Apixaban, Metoprolol), not a person, when spaCy tags it PERSON.
DRUG_STEMS = ("aban", "pril", "sartan", "olol", "statin", "mab", "tinib", "nib", "azole", "prazole", "cillin",
              "mycin", "cycline", "floxacin", "dipine", "parin", "gliptin", "gliflozin", "glutide", "tidine",
              "setron", "vir", "afil", "triptan", "lukast", "semide", "thiazide", "oxetine", "azepam", "azolam",
              "codone", "caine", "sone", "olone", "formin", "gatran", "grel", "terol", "tropium", "dronate")
ORG_SUFFIXES_ZH = (
    "人民医院", "中医医院", "中医院", "中西医结合医院", "妇幼保健院", "妇幼保健医院", "儿童医院", "肿瘤医院", "胸科医院",
    "传染病医院", "精神卫生中心", "精神病医院", "口腔医院", "眼科医院", "医院", "卫生院", "卫生服务中心", "卫生服务站",
    "卫生室", "诊所", "门诊部", "疾病预防控制中心", "疾控中心", "血站", "急救中心", "体检中心", "康复中心", "医学中心",
    "医科大学", "医学院", "大学", "学院", "中学", "小学", "幼儿园", "学校", "公司", "集团", "工厂", "研究所", "研究院",
    "银行", "派出所", "街道办事处", "居委会", "村委会", "养老院", "敬老院", "福利院",
)
# What may stand before an organisation suffix without naming one (我院, 上级医院, 当地医院...).
ORG_GENERIC_ZH = frozenset((
    "我", "本", "该", "外", "他", "她", "当地", "上级", "下级", "基层", "专科", "综合", "三甲", "二甲", "一级", "二级", "三级",
    "社区", "私立", "公立", "乡镇", "县级", "市级", "省级", "附近", "其他", "某", "某某", "原", "前", "后", "首诊", "外地",
    "病初", "起病初", "发病初", "起病后", "发病后", "就近",
    "本地", "村", "乡", "镇", "县", "市", "省", "区", "两家", "多家", "一家", "数家", "各", "其", "专", "大", "小", "中",
    "医", "在", "此", "转诊", "定点", "协作", "合作", "联盟", "上述", "同一", "不同",
))
ORG_SUFFIXES_EN = (
    r"Associates", r"Group", r"Partners", r"Diagnostics", r"Imaging", r"Laboratories", r"Labs", r"Church", r"Mission",
    r"Dept\.?", r"Department", r"Office", r"District", r"Schools", r"Campus", r"Ambulance", r"Center", r"Centre",
    r"Technology", r"Technologies", r"Construction", r"Pediatrics", r"Orthopedics", r"Endocrinology", r"Cardiology",
    r"Dermatology", r"Medicine", r"Behavioral\s+Health", r"Rubber", r"Specialty", r"Services", r"Agency", r"Ministries",
    r"Hospital", r"Medical\s+Center", r"Medical\s+Centre", r"Health\s+Center", r"Health\s+System", r"Clinic",
    r"Infirmary", r"Senior\s+Living", r"Assisted\s+Living", r"Living\s+Center", r"Care\s+Center", r"University", r"College", r"School", r"Academy", r"Institute", r"Nursing\s+Home",
    r"Rehabilitation\s+Center", r"Hospice", r"Health\s+Care", r"Healthcare", r"Inc\.?", r"LLC", r"Ltd\.?",
    r"Corporation", r"Corp\.?", r"Company", r"Co\.", r"Pharmacy", r"Bank", r"Foundation",
)
ORG_SUFFIXES_ZH_MORE = ("分行", "支行", "营业部", "分公司", "总会", "协会", "基金会", "学校", "配送站", "物流", "商行", "电子厂",
                        "制造厂", "加工厂", "分局", "总局", "项目部", "养老中心", "康养中心", "护理院", "事务所", "工作室", "超市",
                        "大药房", "药店", "酒店", "饭店", "餐厅", "物业", "速运", "快递", "律师事务所", "研究中心", "车队",
                        # Branches, agencies, police and customs, troupes (…分院, …调解委员会, …总队…支队, …工程局).
                        "分院", "委员会", "办事处", "鉴定中心", "保健中心", "保健院", "检验所", "防治所", "检测中心",
                        "支队", "大队", "总队", "公安局", "管理局", "工程局", "航空局", "海关", "剧团", "乐团", "艺术团",
                        "评弹团", "歌舞团",
                        # Care and public bodies by their kind (…医疗中心, …健康服务中心, …血液中心, …司法鉴定所,
                        # …医疗保障局), pharmacies and airports; a shop's branch (…中心店) is the tail's (_zh_org_tail).
                        "医疗中心", "健康服务中心", "健康中心", "血液中心", "司法鉴定所", "鉴定所", "保障局", "卫生健康局",
                        "卫生局", "民政局", "教育局", "人社局", "药房", "国际机场", "机场", "互联网医院",
                        # Public health bodies, works and agencies by their kind (…职业病防治院, …紧急医疗救援中心,
                        # …公共卫生临床中心, …居家护理服务中心, …纺织机械厂, …食品厂, …旅行社, …都市报).
                        "防治院", "防治中心", "救援中心", "临床中心", "服务中心", "机械厂", "食品厂", "纺织厂", "化工厂",
                        "钢铁厂", "水泥厂", "服装厂", "造纸厂", "印刷厂", "机床厂", "制药厂", "药厂", "酒厂", "砖厂",
                        "棉纺厂", "塑料厂", "家具厂", "汽车厂", "旅行社", "报社", "日报", "晚报", "都市报")
ADDRESS_TAIL_ZH = "路街道巷弄胡同里村组屯号栋幢楼座层室单元院区园苑城庄寨坊大厦广场花园小区公寓宿舍社区乡镇县市段"
EN_STREET = (r"(?:Broadway|Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|Terrace|Ter|"
             r"Circle|Cir|Highway|Hwy|Parkway|Pkwy|Square|Sq|Trail|Trl|Alley|Row|Crescent|Close|Pike|Turnpike|Tpke|"
             r"Parade|Pde|Tce|Mews|Grove|Gardens|Esplanade|Quay|Wharf|Rise|Loop|Plaza)\.?")
US_STATES = ["AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY", "DC"]
# US states by their full names (one word), Australian states and territories, Canadian provinces and territories.
US_STATE_NAMES = frozenset(("alabama", "alaska", "arizona", "arkansas", "california", "colorado", "connecticut",
                            "delaware", "florida", "georgia", "hawaii", "idaho", "illinois", "indiana", "iowa", "kansas",
                            "kentucky", "louisiana", "maine", "maryland", "massachusetts", "michigan", "minnesota",
                            "mississippi", "missouri", "montana", "nebraska", "nevada", "ohio", "oklahoma", "oregon",
                            "pennsylvania", "tennessee", "texas", "utah", "vermont", "virginia", "washington",
                            "wisconsin", "wyoming"))
AU_STATES = ("NSW", "VIC", "QLD", "WA", "SA", "TAS", "NT", "ACT")
CA_PROVINCES = ("AB", "BC", "MB", "NB", "NL", "NS", "NT", "NU", "ON", "PE", "QC", "SK", "YT")


@tables.stored("zh_surnames")
def zh_surnames() -> tuple[frozenset[str], frozenset[str]]:
    """(single-character surnames, compound surnames)."""
    import opencc
    from faker.providers.person.zh_CN import Provider
    from faker.providers.person.zh_TW import Provider as TwProvider

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        from jionlp.rule import rule_pattern  # prints a banner on import
    # JioNLP's surnames that are seldom anything else (蒯, 訾, 宓, 荀, 鄂...) and its compound ones (羊舌, 淳于).
    names = set(Provider.last_names) | set(TwProvider.last_names) | set(EXTRA_SURNAMES) | \
        set(rule_pattern.SINGLE_CHINESE_FAMILY_NAME) | set(rule_pattern.TWO_CHAR_CHINESE_FAMILY_NAME.split("|"))
    names |= set(COMPOUND_SURNAMES)
    to_traditional = opencc.OpenCC("s2t")
    # 諸葛, 歐陽 in notes written in traditional characters (single surnames in them come from Faker's zh_TW list: a
    # converted 後, 時, 於 would be a function word).
    names |= {to_traditional.convert(n) for n in names if len(n) == 2}
    compound = {n for n in names if len(n) == 2}
    single = {n for n in names if len(n) == 1}
    return frozenset(single), frozenset(compound)


@cache
def zh_given_name_chars() -> frozenset[str]:
    """The characters of Faker's Chinese given names (zh_CN and zh_TW: 明, 荣, 琴, 涛…)."""
    from faker.providers.person.zh_CN import Provider
    from faker.providers.person.zh_TW import Provider as TwProvider

    return frozenset("".join((*Provider.first_names, *TwProvider.first_names)))


@tables.stored("pinyin_surnames")
def pinyin_surnames() -> frozenset[str]:
    """Capitalised pinyin of the surnames (Zhang, Wang, Ouyang...), for romanised Chinese names."""
    from pypinyin import Style, lazy_pinyin

    single, compound = zh_surnames()
    out = set()
    for s in (*single, *compound):
        out.add("".join(lazy_pinyin(s, style=Style.NORMAL)).capitalize())
    return frozenset(x for x in out if x.isalpha() and len(x) >= 2)


@tables.stored("china_places")
def china_places() -> tuple[frozenset[str], frozenset[str]]:
    """(province names and aliases, names of cities and counties with their aliases) from JioNLP's gazetteer."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        import jionlp  # prints a banner on import

        data = jionlp.china_location_loader()
    provinces: set[str] = set()
    lower: set[str] = set()

    def names(node: dict) -> list[str]:
        alias = node.get("_alias") or []
        alias = [alias] if isinstance(alias, str) else list(alias)
        return [node["_full_name"], *alias]

    for prov in data.values():
        provinces.update(n for n in names(prov) if len(n) >= 2)
        for ck, city in prov.items():
            if ck.startswith("_") or not isinstance(city, dict):
                continue
            if city["_full_name"] != "市直辖行政区划":
                lower.add(city["_full_name"])
            for kk, county in city.items():
                if not kk.startswith("_") and isinstance(county, dict) and len(county["_full_name"]) >= 2:
                    lower.add(county["_full_name"])
    lower.discard("城区")
    return frozenset(provinces), frozenset(lower)

# Clinical words absent from jieba's dictionary that its HMM tags as person names (查体 "physical examination" at a
# line's start reads as surname 查 + given name 体); never names on jieba's tag alone.
ZH_CLINICAL_NOT_NAMES = frozenset(("查体", "专科查体", "谷丙", "谷草", "甘精", "罗格", "孟鲁司", "贝那", "白蛋白", "窦律",
                                   "窦性",
                                   # Rhythms and lobes written short (窦速 sinus tachycardia, 左叶 left lobe).
                                   "窦速", "窦缓", "房速", "室速", "房扑", "室扑", "房颤", "室颤", "左叶", "右叶",
                                   "左室", "右室", "左房", "右房"))
# Findings that start with a surname and take a degree after them (张力高, 肌力低); three characters so read are
# not names on jieba's tag alone.
ZH_CLINICAL_PREFIXES = frozenset(("张力", "肌力", "压力", "阻力"))


@cache
def clinical_terms() -> frozenset[str]:
    """Lower-cased clinical abbreviations, section and lab words, and rare eponyms of instruments and techniques
    (clinical_terms.yaml, which says where they come from): never a person or an organisation on their own."""
    from importlib.resources import files

    import yaml

    data = yaml.safe_load(files("climedbench.deid").joinpath("clinical_terms.yaml").read_text(encoding="utf-8"))
    return frozenset(str(w).lower() for key in ("abbreviations", "words", "eponyms") for w in data[key])


def clinical_word(word: str) -> bool:
    """A clinical abbreviation or word of clinical_terms.yaml, also with digits joined to it (T2DM, SVG-OM1)."""
    w = word.strip(".,;:()[]'\"").lower()
    terms = clinical_terms()
    if w in terms:
        return True
    # Letters joined to digits or to another abbreviation: one of the letter runs is a clinical term.
    return bool(re.search(r"[\d/-]", w)) and any(p in terms for p in re.findall(r"[a-z]{2,}", w))


# Words that name a kind of service, not one place (Internal Medicine, Pulmonary Medicine, Medical ICU).
EN_SPECIALTY_WORDS = frozenset(re.findall(r"\S+", """
acute surgery surgical addiction trauma critical intensive orthopaedic orthopaedics orthopedic orthopedics
general emergency internal transplant palliative rehabilitation hepatology medical pediatric pediatrics
endocrinology cardiology dermatology medicine family group associates center centre services office department
dept imaging diagnostics specialty behavioral health of and adult child women's outpatient inpatient sleep
stroke wound care infusion dialysis cancer heart vascular pain spine respiratory pulmonary physiotherapy
physical therapy oncology hematology haematology rhythm management failure labor labour delivery urgent
neurology nephrology rheumatology psychiatry urology radiology gastroenterology obstetrics gynecology
gynaecology geriatrics geriatric maternity neonatal icu micu sicu ccu nicu unit cardiac
"""))
