import json
import subprocess
import sys

import pytest

from climedbench.extract import extract_choice, extract_keywords, extract_order, extract_text
from climedbench.extractors import extract_label

# The development fixtures are checked case by case in tests/test_extract_pinned.py (every case read right once must
# stay right). Their figures are NOT accuracy estimates: the extractor was tuned on them. The honest figure comes from
# a blind set, measured once: python bench/extraction_accuracy.py --blind PATH.


def test_final_answer_beats_earlier_mentions():
    opts = "ABCDE"
    assert extract_choice("A 错误……B 正确……C 错误。综上，选B。", opts).answer == "B"
    assert extract_choice("我最初选A，但仔细考虑后，正确答案应为C", opts).answer == "C"
    assert extract_choice("参考答案 C 并不正确，因此答案应为 E 而不是 C。", opts).answer == "E"
    assert extract_choice("<think>答案是A吧</think>\n**答案：（Ｄ）**", opts).answer == "D"
    assert extract_choice("<think>答案是A……不对，再想想", opts).answer is None
    assert extract_choice("需要做B超和CT。答案：D", opts).answer == "D"
    assert extract_choice("答案：F", opts).answer is None
    assert extract_choice("A和C都有可能，需要进一步检查。", opts).answer is None
    assert extract_choice("作为AI，我无法提供医疗建议。", opts).answer is None
    assert extract_choice("我选择狼疮性肾炎。", opts, option_texts={"A": "乙肝相关肾炎", "B": "狼疮性肾炎"}).answer == "B"


@pytest.mark.parametrize("response, expected", [
    ("D。", "D"), ("A</s>", "A"), ("B<|im_end|>", "B"), ("C<|endoftext|>", "C"), ("the answer is b.", "B"),
    ("選D", "D"), ("答案為：C，因為……", "C"), ("I'd go with option d", "D"), ("The answer is a fracture.", None),
    ("…选B。不对，应选C", "C"), ("可能是A也可能是C，无法确定", None), ("以上都不对", "D"), ("我认为以上都对。", "C"),
    ("答案不是以上都对，而是A", "A"), ("最可能的诊断是急性胆囊炎。", "B"),
])
def test_normalised_forms_written_out_answers_and_hedges(response, expected):
    """The misses an outside check found: end tokens, case, traditional characters, none/all of the above written
    out, restated-then-corrected answers, and hedges that never commit."""
    opts = {"A": "急性胰腺炎", "B": "急性胆囊炎", "C": "以上都对", "D": "以上都不对"}
    assert extract_choice(response, "ABCD", option_texts=opts).answer == expected


def test_v9_misses():
    """What the ninth author's set taught (general cases, not its lines)."""
    opts = "ABCDE"
    # A model that writes a further turn after its end-of-turn token: only the first turn answers.
    assert extract_choice("答案：C<|endoftext|>Human: 下一题……\nAssistant: 答案：D", opts).answer == "C"
    assert extract_choice("The answer is B.\n</s>The answer is E.", opts).answer == "B"
    # A shared beginning is not a shared stem: 'hypertension' does not name 'Hyperthyroidism'.
    texts = {"A": "Pheochromocytoma", "B": "Hyperthyroidism", "C": "Cushing syndrome"}
    assert extract_choice("Paroxysmal hypertension with headaches: a catecholamine-secreting tumor.", "ABC",
                          option_texts=texts).answer is None
    assert extract_choice("The most likely diagnosis is pheochromocytoma. Paroxysmal hypertension fits.", "ABC",
                          option_texts=texts).answer == "A"
    # An answer stated, then a different conclusion with no correction: no answer.
    assert extract_choice("答案：B\n\n解析：……\n\n因此本题选D。", opts).answer is None
    assert extract_choice("答案：B\n\n解析：……不对，应为D。因此本题选D。", opts).answer == "D"
    # Several answers: bracketed runs, "are", a run that reaches into the next clause, a corrected set, an arrow.
    assert extract_choice("答案：（A）（B）（C）", opts, multi=True).answer == "ABC"
    assert extract_choice("So the answers are B and C.", opts, multi=True).answer == "BC"
    assert extract_choice("正确的做法是：A、B、C、E；D错误。", opts, multi=True).answer == "ABCE"
    assert extract_choice("选AD。\n……B也对。\n\n修正：ABD", opts, multi=True).answer == "ABD"
    assert extract_choice("All five are reversible causes → ABCDE", opts, multi=True).answer == "ABCDE"
    # Hedges that reject every option or refuse to choose.
    assert extract_choice("Both A and C are first-line; I can't choose between them.", opts).answer is None
    assert extract_choice("Steroids would be best, which are not listed.", opts).answer is None
    # Two different orders with no correction between them.
    assert extract_order("E→D→A→B→C\n\n……\n\n因此正确顺序为：D→E→A→B→C", opts).answer is None
    assert extract_order("E→D→A→B→C\n\n不对，更正：正确顺序为：D→E→A→B→C", opts).answer == "DEABC"
    assert extract_label("Yes.\n\nHmm, the primary endpoint failed; I'll revise my answer to maybe.",
                         ("yes", "no", "maybe")).answer == "maybe"


@pytest.mark.parametrize("response", ["(1)E (2)B (3)A (4)D (5)C", "① E ② B ③ A ④ D ⑤ C", "（1）E（2）B（3）A（4）D（5）C",
                                      "先E后B再A然后D最后C", "首先E，然后B，接着A，再D，最后C"])
def test_order_styles(response):
    assert extract_order(response, "ABCDE").answer == "EBADC"


def test_hedges_contradictions_and_invented_questions():
    opts = "ABCDE"
    # Two letters offered as alternatives, no answer after them.
    assert extract_choice("The answer is either A or E; serology is needed to tell.", opts).answer is None
    assert extract_choice("It could be pheochromocytoma (B) or hyperthyroidism (E).", opts).answer is None
    assert extract_choice("对于敏感株可以选择A；如果耐药，可能需要选择E。", opts).answer is None
    assert extract_choice("A和B都是常用的药物。", opts).answer is None
    assert extract_choice("可能是A或C，但结合病史，答案：C", opts).answer == "C"  # committed after the hedge
    # Two strong answers that disagree with no correction between them; a correction resolves it.
    assert extract_choice("答案：A\n\n解析：……因此正确答案为B。", opts).answer is None
    assert extract_choice("答案：A\n\n解析：……因此本题正确答案应为C。", opts).answer == "C"
    # An answer, then an invented next question with its own answer.
    assert extract_choice("A\n\n问题：低钾血症的心电图表现是？\nA. T波高尖\nB. U波明显\n答案：B", opts).answer == "A"
    # Cut off in the middle of the option-by-option analysis.
    assert extract_choice("逐一分析：\nA. 稳定型心绞痛：与本例不符。\nB. 急性前壁心肌梗死：", opts).answer is None
    # An aside after the answer; an answer closing the response.
    assert extract_choice("首选化疗，所以选B，C也可以作为辅助。", opts).answer == "B"
    assert extract_choice("因此，不属于Cushing综合征表现的是D。", opts).answer == "D"
    assert extract_choice("A项", opts).answer == "A"
    assert extract_choice("Lamotrigine is associated with SJS. Answer is A.", "ABCD").answer == "A"
    assert extract_choice("I'm not a doctor and can't provide a diagnosis.", opts,
                          option_texts={"A": "SIADH", "E": "Hypothyroidism"}).answer is None


def test_answer_lines_notes_and_json():
    opts = "ABCDE"
    assert extract_choice("……典型表现。\n\n答案 → B", opts).answer == "B"
    assert extract_choice("Unopposed estrogen is the major risk factor. ✅ C", "ABCD").answer == "C"
    assert extract_choice("主要病原体是EV71和柯萨奇病毒A16型。\n\nB", opts).answer == "B"
    assert extract_choice("Doxycycline if allergic.\n\ncorrect answer - B", opts).answer == "B"
    assert extract_choice("Normal AG acidosis.\n\nAnswer — B", opts).answer == "B"
    assert extract_choice("Boot-shaped heart is TOF.\n\nHence, option B.", opts).answer == "B"
    assert extract_choice("答案：C。\n\n（注：若题目问“金标准”，则应选E。）", opts).answer == "C"
    assert extract_choice("答案：B。等等，应该修正为A。", opts).answer == "A"
    assert extract_choice("都可以排除。\n\n剩下的就是C。", opts).answer == "C"
    assert extract_choice('{"answer": "A", "reason": "诊断明确，应尽早手术。"}', opts).answer == "A"
    assert extract_choice("Answer: B.\n\nOther options:\nA – tear\nC – varices", opts).answer == "B"
    assert extract_choice("A、B、C", opts, multi=True).answer == "ABC"
    assert extract_choice("题目问的是无创检查：\n\nA、B、C", opts, multi=True).answer == "ABC"
    assert extract_choice("So the answer is options A, B, and C.", opts, multi=True).answer == "ABC"
    assert extract_choice("除了E，其余都对。", opts, multi=True).answer == "ABCD"
    assert extract_choice("我觉得应该选择ABCD，但也不排除E。", opts, multi=True).answer is None
    drugs = {"A": "阿司匹林", "B": "布洛芬", "C": "对乙酰氨基酚", "D": "双氯芬酸钠", "E": "吲哚美辛"}
    assert extract_choice("患儿3个月大，因此选择对乙酰氨基酚。阿司匹林可能引起Reye综合征，儿童禁用。", opts,
                          option_texts=drugs).answer == "C"
    strep = {"A": "A群β溶血性链球菌", "B": "肺炎链球菌", "C": "金黄色葡萄球菌", "D": "流感嗜血杆菌", "E": "腺病毒"}
    assert extract_choice("病原体是A组β型溶血性链球菌。", opts, option_texts=strep).answer == "A"
    tft = {"A": "Increased TSH, decreased free T4", "D": "Decreased TSH, decreased free T4"}
    assert extract_choice('Among the options, the best fit is "Decreased TSH, decreased free T4".', "AD",
                          option_texts=tft).answer == "D"
    assert extract_choice("None of the listed options are ideal; glucocorticoids would be best.", opts).answer is None
    assert extract_choice("It's hard to know for sure without a biopsy.", opts,
                          option_texts={"A": "Prostate cancer", "C": "Prostatitis"}).answer is None


def test_verdict_lines_colon_runs_and_line_breaks():
    lines = ("A. 结核菌素试验阴性可排除结核病 —— 错误 ×（可有假阴性）\nB. 空洞型肺结核传染性小 —— 错误 ×\n"
             "C. 痰涂片阳性者具有传染性 —— 正确 √\nD. 肺结核均需手术治疗 —— 错误 ×（以化疗为主）")
    assert extract_choice(lines, "ABCD").answer == "C"
    checklist = "预防措施：\n- A. 早期活动 ✔\n- B. 抗凝 ✔\n- C. 弹力袜 ✔\n- D. 充气加压 ✔\n- E. 长期卧床 ✘（增加风险）"
    assert extract_choice(checklist, "ABCDE", multi=True).answer == "ABCD"
    assert extract_choice("……以意识水平下降为主的：A、C、E<|im_end|>", "ABCDE", multi=True).answer == "ACE"
    assert extract_choice("正确答案：D\n\nA项二甲双胍可通过胎盘；胰岛素不通过胎盘。", "ABCD").answer == "D"
    assert extract_choice("肾功能情况不明，所以可能是C，也可能是A。", "ABCD").answer is None
    assert extract_choice("立即剖宫产（A）需要准备时间……按照选项来看，实在没有合适答案。", "ABCD",
                          option_texts={"A": "立即剖宫产", "B": "静脉滴注缩宫素"}).answer is None


def test_multi_runs_json_ticks_and_unfinished_responses():
    opts = "ABCDE"
    assert extract_choice("A、B、D\n\n微血管并发症……冠心病和脑卒中属于大血管并发症。", opts, multi=True).answer == "ABD"
    assert extract_choice("(A)(C)(E)\n\nMultiparity is protective.", opts, multi=True).answer == "ACE"
    assert extract_choice("答案是AB和D。β受体阻滞剂急性期禁用。", opts, multi=True).answer == "ABD"
    assert extract_choice("除D项外其余均正确。", opts, multi=True).answer == "ABCE"
    assert extract_choice("答案：ABD\n\n……因此正确答案是BCD。", opts, multi=True).answer is None
    assert extract_choice("答案：ABD。\n补充：E也属于毒蕈碱样症状，故正确答案为ABDE。", opts, multi=True).answer == "ABDE"
    assert extract_choice('{"answer": ["B", "C"]}', opts, multi=True).answer == "BC"
    preg = {"A": "血容量增加", "B": "心率加快", "C": "血红蛋白浓度升高", "D": "肾小球滤过率增加", "E": "胃排空加快"}
    ticks = "✅ 血容量增加\n✅ 心率加快\n❌ 血红蛋白浓度升高——实为下降\n✅ 肾小球滤过率增加\n❌ 胃排空加快"
    assert extract_choice(ticks, opts, multi=True, option_texts=preg).answer == "ABD"
    assert extract_choice("新生儿呼吸窘迫综合征表现为呼吸急促（>60次/分）、", opts, multi=True).answer is None
    assert extract_choice("Option A, lisinopril, is", opts).answer is None
    assert extract_choice("Ans. is 'b' i.e., Ethosuximide", "ABCD").answer == "B"
    assert extract_choice("Ans: d) Ampulla", "ABCD").answer == "D"
    assert extract_choice("c.", "ABCD").answer == "C"
    assert extract_choice("Answer: A\n\nOn reflection, PTHrP points to squamous cell. Let me correct that: the answer is D.",
                          opts).answer == "D"


def test_answers_introduced_first_then_other_options_discussed():
    """The commonest miss on real model output: the answer stated after a lead-in, then every other option discussed."""
    opts = {"A": "Diabetes", "B": "Hypertension", "C": "Diarrhea", "D": "Metformin", "E": "Sleep apnea"}
    resp = ("The most likely cause of the changes is:\n\nC: Diarrhea.\n\nThe abnormal labs fit diarrhea.\n\n"
            "Metformin (D) rarely causes this. Sleep apnea (E) may cause respiratory symptoms, but not acidosis.")
    assert extract_choice(resp, "ABCDE", option_texts=opts).answer == "C"
    assert extract_choice('I would diagnose it as "C: Tubular proteinuria."\n\n* A: Overflow … not applicable.',
                          "ABCDE").answer == "C"
    listed = ("The correct answer is (B) epinephrine.\n\nThe other options are:\n\n(A) Diphenhydramine: helps hives.\n"
              "(C) Methylprednisolone: delayed onset.")
    assert extract_choice(listed, "ABCD").answer == "B"
    assert extract_choice("Option A: agonist\n\nCorrect! The correct answer is A.\n\nNow the incorrect options:\n\n"
                          "Option B: antagonist - no.", "ABCD").answer == "A"
    assert extract_choice('Option D, "Receive genetic counseling," is the correct answer.\n\nOption C, "Have an '
                          'operation," is not relevant.', "ABCD").answer == "D"
    assert extract_choice("D. All of the above.\n\nTherefore, the correct answer is D, all of the above.", "ABCD",
                          option_texts={"A": "IUCD", "B": "Infertility", "C": "Endometriosis", "D": "All the above"}
                          ).answer == "D"


def test_answers_named_by_option_text():
    texts = {"A": "血红蛋白降低", "B": "血清铁降低", "C": "血清铁蛋白降低", "D": "总铁结合力升高", "E": "红细胞平均体积减小"}
    echoed = "选项分析：\n" + "\n".join(f"{k}. {v}——……" for k, v in texts.items()) + "\n\n最可靠的指标是血清铁蛋白降低。"
    assert extract_choice(echoed, "ABCDE", option_texts=texts).answer == "C"  # after the echoed list
    ct = {"A": "头颅CT平扫", "B": "头颅MRI", "C": "腰椎穿刺", "D": "脑血管造影", "E": "脑电图"}
    assert extract_choice("首选头颅CT。", "ABCDE", option_texts=ct).answer == "A"
    en = {"A": "Ampulla of the fallopian tube", "B": "Isthmus of the fallopian tube", "C": "Ovary", "D": "Cervix"}
    assert extract_choice("The most common site is the ampullary part of the fallopian tube.", "ABCD",
                          option_texts=en).answer == "A"
    croup = {"A": "Epiglottitis", "B": "Croup (laryngotracheobronchitis)", "C": "Bacterial tracheitis"}
    assert extract_choice("Answer: Croup", "ABC", option_texts=croup).answer == "B"
    tb = {"A": "早期", "B": "联合", "C": "适量", "D": "规律", "E": "短程冲击"}
    assert extract_choice("化疗原则为早期、联合、适量、规律、全程，不包括短程冲击。", "ABCDE", option_texts=tb).answer == "E"
    nota = {"A": "Amoxicillin", "B": "Azithromycin", "C": "Levofloxacin", "D": "None of the above"}
    assert extract_choice("None of the above. Antibiotics provide no benefit.", "ABCD", option_texts=nota).answer == "D"
    assert extract_choice("以上选项均不完全正确。", "ABCDE", option_texts=tb).answer is None
    formula = {"A": "四君子汤", "B": "四物汤", "C": "六味地黄丸", "D": "补中益气汤", "E": "归脾汤"}
    assert extract_choice("四君子汤。\n\n本方益气健脾；补中益气汤偏于升阳，归脾汤益气补血。", "ABCDE",
                          option_texts=formula).answer == "A"
    nitro = {"A": "硝酸甘油舌下含服", "B": "阿司匹林口服", "C": "美托洛尔静注", "D": "吗啡肌注", "E": "硝苯地平口服"}
    assert extract_choice("舌下含服硝酸甘油。", "ABCDE", option_texts=nitro).answer == "A"
    g6pd = {"A": "Primaquine", "B": "Dapsone", "C": "Nitrofurantoin", "D": "Sulfamethoxazole", "E": "None of the above"}
    assert extract_choice("All can precipitate hemolysis in G6PD deficiency, so none of these is safe.", "ABCDE",
                          option_texts=g6pd).answer == "E"
    links = {"A": "传染源", "B": "传播途径", "C": "易感人群", "D": "病原体", "E": "社会因素"}
    assert extract_choice("三个基本环节是传染源、传播途径和易感人群。病原体和社会因素属于影响因素而非基本环节。", "ABCDE",
                          multi=True, option_texts=links).answer == "ABC"


def test_multi_answers_written_as_exceptions_counts_and_lists():
    assert extract_choice("除E外，其余选项均为失代偿期的表现。", "ABCDE", multi=True).answer == "ABCD"
    assert extract_choice("A、B、C、D、E都是休克的表现，所以全选。", "ABCDE", multi=True).answer == "ABCDE"
    assert extract_choice("选项A、B、C、E正确，D错误。", "ABCDE", multi=True).answer == "ABCE"
    assert extract_choice("A. 抗甲状腺药物\nB. 放射性碘\nC. 手术\n\n以上三项均为主要治疗方法。", "ABCD",
                          multi=True).answer == "ABC"


def test_orders_corrected_numbered_partial_and_by_text():
    steps = {"A": "缝合切口", "B": "消毒铺巾", "C": "切开皮肤", "D": "止血、结扎血管", "E": "麻醉"}
    assert extract_order("顺序为E→C→B→D→A。等一下，修正为：E→B→C→D→A。", "ABCDE", steps).answer == "EBCDA"
    assert extract_order("E→B→C→D，最后缝合切口。", "ABCDE", steps).answer == "EBCDA"
    assert extract_order("顺序可以是EBCDA，也可以是EBDCA。", "ABCDE", steps).answer is None
    assert extract_order("①麻醉（E）②消毒铺巾（B）③切开（C）④止血（D）⑤缝合（A）", "ABCDE", steps).answer == "EBCDA"
    assert extract_order("Step 1: E\nStep 2: B\nStep 3: C\nStep 4: D\nStep 5: A", "ABCDE").answer == "EBCDA"
    atls = {"A": "Breathing and ventilation", "B": "Circulation with hemorrhage control",
            "C": "Airway maintenance with cervical spine protection", "D": "Disability (neurologic evaluation)",
            "E": "Exposure and environmental control"}
    assert extract_order("Airway maintenance with cervical spine protection → Breathing and ventilation → "
                         "Circulation with hemorrhage control → Disability → Exposure", "ABCDE", atls).answer == "CABDE"


def test_orders_in_json_slashes_and_unfinished():
    assert extract_order('{"order": ["E", "B", "C", "D", "A"]}', "ABCDE").answer == "EBCDA"
    assert extract_order("答案是 C/B/E/A/D", "ABCDE").answer == "CBEAD"
    assert extract_order("具体顺序：\n1. D X线检查\n2. E 麻醉\n3.", "ABCDE").answer is None
    assert extract_order("答案：D→E→A→B→C\n\n答案：B→D→E→A→C", "ABCDE").answer is None
    assert extract_order("如果除颤器在身边，应B→C→E→A→D；否则C→B→E→A→D。两种顺序都可以。", "ABCDE").answer is None
    assert extract_order("B和C的先后可以互换，顺序为B/C→D→A。", "ABCD").answer is None


def test_orders_by_text_bracketed_letters_and_option_lines():
    milestones = {"A": "独走", "B": "抬头", "C": "独坐", "D": "翻身", "E": "爬"}
    assert extract_order("按照“二抬四翻六会坐，七滚八爬周会走”：抬头、翻身、独坐、爬、独走。", "ABCDE",
                         milestones).answer == "BDCEA"
    wound = {"A": "Irrigate the wound", "B": "Administer local anesthetic", "C": "Close the wound with sutures",
             "D": "Explore for foreign bodies"}
    assert extract_order("Anesthetize first (B), then explore the wound for foreign bodies, irrigate copiously, and "
                         "finally close with sutures.", "ABCD", wound).answer == "BDAC"
    assert extract_order("流程：C（细胞学）→ B（阴道镜）→ D（活检），必要时 A（锥切）。", "ABCD").answer == "CBDA"
    listed = "The correct order would be:\n\nD. Assess\nC. X-ray\nE. Analgesia\nA. Reduce\nB. X-ray again"
    assert extract_order(listed, "ABCDE").answer == "DCEAB"
    assert extract_order("Options:\nA. one\nB. two\nC. three", "ABC").answer is None  # an echo, not an order


def test_yes_no_labels():
    yn = ("yes", "no")
    assert extract_label("答案：是\n\n两药合用可致严重低血压。", yn).answer == "yes"
    assert extract_label("答案：否。两者无明显相互作用。", yn).answer == "no"
    assert extract_label("Yes. The study shows benefit.\n\nIn conclusion, no, it does not.", ("yes", "no", "maybe")
                         ).answer is None
    assert extract_label("It depends on the dose; there may be no meaningful interaction.", yn).answer is None
    assert extract_label("A) yes\nB) no\nC) maybe\n\nThe correct answer is B) no.", ("yes", "no", "maybe")).answer == "no"
    assert extract_label("No, I don't think so. Actually — yes. Rifampin induces CYP3A4.", yn).answer == "yes"
    assert extract_label("Both cause vasodilation; combined use can cause profound hypotension.\n\n**yes**", yn).answer == "yes"
    assert extract_label("Answer: yes\nAnswer: no", yn).answer is None
    assert extract_label("Yes and no — it depends on the timing of the doses.", yn).answer is None
    assert extract_label("是的，两者存在相互作用。克拉霉素抑制CYP3A4。", yn).answer == "yes"
    assert extract_label("The results are mixed: adherence improved but there was no difference in control.",
                         ("yes", "no", "maybe")).answer is None


def test_multi_and_order():
    assert extract_choice("正确选项为A，C和D", "ABCDE", multi=True).answer == "ACD"
    assert extract_choice("答案：ACD", "ABCDE").answer is None  # several letters for a single answer
    assert extract_order("答案：A→B→D→C", "ABCD").answer == "ABDC"
    assert extract_order("应先进行D，再进行B，接着A，最后C", "ABCD").answer == "DBAC"
    assert extract_order("答案：ABD", "ABCD").answer is None
    assert extract_order("答案：DCBA\n理由：\n1. A. 入院\n2. B. 查体\n3. C. 手术\n4. D. 出院", "ABCD").answer == "DCBA"


def test_keywords_and_text():
    assert extract_keywords("关键词：慢性病；养老；医养结合\n解释：……").answer == ["慢性病", "养老", "医养结合"]
    assert extract_keywords("关键词：\n1. 慢性病\n2. 养老\n\n理由……").answer == ["慢性病", "养老"]
    assert extract_keywords("本文研究了老年人。").answer is None
    assert extract_text("<think>x</think> 这并不合适。").answer == "这并不合适。"
    assert extract_text("").answer is None


def test_cli_extract_reads_stdin_lines():
    lines = [
        {"kind": "single", "options": "ABCDE", "response": "综上所述，答案：（Ｃ）"},
        {"kind": "order", "options": "ABCD", "response": "正确顺序为：B、A、D、C"},
        {"kind": "multi", "options": "ABCD", "response": "我选择血常规和肝功能",
         "option_texts": {"A": "血常规", "B": "胃镜", "C": "肝功能", "D": "腰椎MRI"}},
        {"kind": "single", "options": "ABCD", "response": "无法确定"},
        {"kind": "label", "labels": ["yes", "no", "maybe"], "response": "Based on the abstract, the answer is no."},
    ]
    proc = subprocess.run([sys.executable, "-m", "climedbench.cli", "extract"], capture_output=True, text=True,
                          input="\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", check=True)
    assert [json.loads(x)["answer"] for x in proc.stdout.splitlines()] == ["C", "BADC", "AC", None, "no"]
    assert json.loads(proc.stdout.splitlines()[3])["method"] == "hedge"  # the rule that decided is named
    bad = subprocess.run([sys.executable, "-m", "climedbench.cli", "extract"], capture_output=True, text=True,
                         input='{"kind": "single"}\n')
    assert bad.returncode != 0 and "stdin line 1" in bad.stderr and "Traceback" not in bad.stderr


def test_no_option_correct_is_no_answer():
    """(a) A conclusion that no option is correct, after an answer or in an answer field, is no answer."""
    opts = "ABCD"
    assert extract_choice("The answer is B.\n\nWait — B is also incorrect. None of the options is correct.",
                          opts).method == "no_option_correct"
    assert extract_choice("答案：D\n\n解析：……仔细复核，D项剂量也有误。综上，四个选项都不对。", opts).answer is None
    assert extract_choice("Answer: N/A - none of these is the first-line agent.", opts).answer is None
    assert extract_choice("正确答案：无。题目所给的选项都不是首选药物。", opts).answer is None
    assert extract_choice("The correct answer should be propranolol, which is not one of the options.", opts).answer is None
    assert extract_choice("答案：A\n\n分析后发现，各选项均不正确。", opts).answer is None
    assert extract_choice("The answer is C.\n\nOn review, all of the options are incorrect.", opts).answer is None
    assert extract_choice("I don't think any of the options are correct.", opts).answer is None
    assert extract_choice("None of the provided options (A–D) is correct.", opts).answer is None  # not 'D) is correct'
    assert extract_choice("本题答案应为：无。", opts).answer is None
    assert extract_choice("答案：（无）", opts).answer is None
    assert extract_choice("Answer: B\n\nRe-reading the stem, B is wrong as well. None of the choices is appropriate.",
                          opts).answer is None
    assert extract_choice("答案：无菌性脑膜炎，即C。", opts).answer == "C"
    assert extract_choice("A、B选项都不对，C选项正确。", opts).answer == "C"
    # … but not a rejection of the OTHER options, an answer given after it, or a 'none of the above' option.
    assert extract_choice("The answer is C. None of the other options is correct.", opts).answer == "C"
    assert extract_choice("C正确，其余选项均不正确。", opts).answer == "C"
    assert extract_choice("None of the options is perfect, but the best answer is B.", opts).answer == "B"
    assert extract_choice("The answer is D: none of the above.", opts,
                          option_texts={"A": "Aspirin", "B": "Heparin", "C": "Warfarin", "D": "None of the above"}
                          ).answer == "D"
    # Option texts unknown: "以上均不对" after the last letter may be that option's own text.
    assert extract_choice("【正确答案】E\n【解析】以上均不对，因为各选项剂量均有误。", "ABCDE").answer == "E"
    assert extract_choice("【正确答案】B\n【解析】以上均不对，因为各选项剂量均有误。", "ABCDE").answer is None


def test_multi_summary_lists_several_letters():
    """(b) The final summary of a multi-answer item lists several letters."""
    opts = "ABCDE"
    cases = {"Options A, C and D are correct.": "ACD", "A、B、D三项正确，C错误。": "ABD",
             "Thus the right options are (A), (C) and (E).": "ACE", "So the answer includes A, C and E.": "ACE",
             "经分析，A项和C项的说法是正确的，B项和D项错误。": "AC", "Correct: A, D. Incorrect: B, C.": "AD",
             "Therefore, the correct statements are A, B, and E.": "ABE", "答案：\n- A\n- B\n- D": "ABD",
             "A正确。B也正确。": "AB", "All of the following except C are correct.": "ABDE",
             "正确答案：A. 感染；C. 血栓和栓塞；D. 急性肾损伤": "ACD",
             "Answers: (A) Furosemide; (C) Spironolactone; (D) Amiloride": "ACD",
             "The statements in A, B and C are accurate; D is inaccurate.": "ABC"}
    for response, expected in cases.items():
        assert extract_choice(response, opts, multi=True).answer == expected, response


def test_false_statement_questions():
    """(c) An item asking for the false statement, answered by naming it; an answer stated and then a different
    option named as the false one is inconsistent (only the question could tell)."""
    opts = "ABCD"
    cases = {"The incorrect statement is B.": "B", "The exception is D.": "D", "错误的选项是C，因为……": "C",
             "Option C is the one that is NOT a feature of nephrotic syndrome.": "C",
             "So the statement that is not true is C.": "C", "以下各项均是肾病综合征的表现，除了B项。": "B",
             "All of the options except D are side effects of amiodarone.": "D", "除外的是A项。": "A",
             "B is incorrect, which makes B the answer to this question.": "B",
             "不属于糖尿病慢性并发症的是A，因为酮症酸中毒是急性并发症。": "A", "除D外均是造成该病的原因。": "D"}
    for response, expected in cases.items():
        assert extract_choice(response, opts).answer == expected, response
    assert extract_choice("The incorrect options are A, B and D; the answer is C.", opts).answer == "C"
    assert extract_choice("The answer is C. The only option that is not a beta-blocker is B.", opts
                          ).method == "inconsistent"


def test_two_options_endorsed_for_one_answer():
    """(d) Two options endorsed for a single-answer item: a hedge, unless the response then settles on one."""
    opts = "ABCD"
    for response in ["The answer is B. However, D is also correct.", "选B，D也对。", "最佳答案为B，但C也可以。",
                     "答案：C（B也正确）", "Answer: A. C would also be correct.", "A is true. B is true. C is false. D is true.",
                     "B. Ceftriaxone\nD. Azithromycin", "B (or D)", "C is correct, as is D.", "答案是B，但D也说得通。",
                     "C. Furosemide — and D would also work.", "B\nD"]:
        assert extract_choice(response, opts).answer is None, response
    for response, expected in [("B and D are both correct, but B is the best answer.", "B"),
                               ("Both A and D are acceptable; I'll pick A.", "A"), ("首选化疗，所以选B，C也可以作为辅助。", "B"),
                               ("The answer is C. If the patient were pregnant, D would also be correct.", "C"),
                               ("The answer is A; B would also be incorrect.", "A"), ("A项不符合。B项符合本例。", None)]:
        assert extract_choice(response, opts).answer == expected, response
