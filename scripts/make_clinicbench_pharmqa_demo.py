"""Build the bundled ClinicBench demo's PharmQA files (test.xlsx, dev.xlsx) from the items below.

    python scripts/make_clinicbench_pharmqa_demo.py   # rewrites src/climedbench/suites/clinicbench/demo/PharmQA/

The files have the exact columns and sheet name of the ClinicBench repository's Pharmacology-QA.xlsx: type, created,
name, description, question, option_A-D, answer, explanation. The items were written for climedbench (nothing is
copied from the authors' file or DrugBank); see demo/PharmQA/NOTES.md.

`created` here is the first day of the month of the drug's first FDA approval (the authors' file holds the date
the drug's DrugBank entry was created).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

DEMO = Path(__file__).resolve().parents[1] / "src" / "climedbench" / "suites" / "clinicbench" / "demo"

# (type, (year, month), name, description, question, [A, B, C, D], answer, explanation)
TEST = [
    ("small molecule", (2023, 8), "Zuranolone",
     "Zuranolone is an orally bioavailable synthetic neuroactive steroid taken once daily for 14 days. It is approved "
     "for the treatment of postpartum depression in adults.",
     "What is the mechanism of action of zuranolone?",
     ["Selective inhibition of serotonin reuptake transporters", "GABA-A receptor positive allosteric modulation",
      "NMDA receptor antagonism", "Melatonin receptor agonism"], "B",
     "Zuranolone is a neuroactive steroid that positively modulates synaptic and extrasynaptic GABA-A receptors, like "
     "brexanolone. It does not inhibit serotonin reuptake (SSRIs), block NMDA receptors (esketamine) or act on "
     "melatonin receptors (agomelatine)."),
    ("small molecule", (2023, 5), "Fezolinetant",
     "Fezolinetant is an oral non-hormonal drug approved for moderate to severe vasomotor symptoms (hot flashes) due "
     "to menopause. It acts on KNDy neurons of the hypothalamic thermoregulatory centre.",
     "What is the target of fezolinetant?",
     ["Neurokinin 3 receptor", "Estrogen receptor alpha", "Serotonin 5-HT1A receptor",
      "Gonadotropin-releasing hormone receptor"], "A",
     "Fezolinetant is a selective neurokinin 3 (NK3) receptor antagonist that blocks neurokinin B signalling on "
     "KNDy neurons, restoring thermoregulatory control. It is non-hormonal, so it does not act on estrogen receptors, "
     "and it does not target serotonin or GnRH receptors."),
    ("biotech", (2023, 1), "Lecanemab",
     "Lecanemab is a humanized IgG1 monoclonal antibody approved for early Alzheimer disease (mild cognitive "
     "impairment or mild dementia) with confirmed amyloid pathology. Amyloid-related imaging abnormalities (ARIA) are "
     "its main adverse effect.",
     "What is the target of lecanemab?",
     ["Hyperphosphorylated tau", "Beta-secretase (BACE1)", "Amyloid-beta protofibrils", "Apolipoprotein E4"], "C",
     "Lecanemab binds with high affinity to soluble aggregated amyloid-beta, especially protofibrils, and reduces "
     "brain amyloid plaque. It does not target tau, inhibit BACE1 or bind apolipoprotein E4."),
    ("small molecule", (2024, 3), "Resmetirom",
     "Resmetirom is an oral, liver-directed drug approved, together with diet and exercise, for adults with "
     "noncirrhotic metabolic dysfunction-associated steatohepatitis (MASH) with moderate to advanced liver fibrosis "
     "(stages F2 to F3).",
     "Through which mechanism does resmetirom reduce liver fat?",
     ["Farnesoid X receptor agonism", "Peroxisome proliferator-activated receptor agonism",
      "Thyroid hormone receptor-beta agonism",
      "GLP-1 receptor agonism"], "C",
     "Resmetirom is a partial agonist selective for the thyroid hormone receptor-beta, the main isoform in the liver, "
     "increasing hepatic fat metabolism. Obeticholic acid is an FXR agonist, elafibranor and lanifibranor "
     "PPAR agonists and semaglutide a GLP-1 receptor agonist."),
    ("biotech", (2024, 3), "Sotatercept",
     "Sotatercept is given by subcutaneous injection every 3 weeks, added to background therapy for adults with "
     "pulmonary arterial hypertension (WHO group 1) to improve exercise capacity and reduce clinical worsening. It "
     "rebalances pro-proliferative and anti-proliferative signalling in the pulmonary vasculature.",
     "What type of drug is sotatercept?",
     ["Small-molecule endothelin receptor antagonist", "Activin receptor IIA-Fc fusion protein",
      "Prostacyclin receptor agonist", "Soluble guanylate cyclase stimulator"], "B",
     "Sotatercept is a recombinant fusion protein of the extracellular domain of activin receptor type IIA with the Fc "
     "portion of human IgG1, acting as a ligand trap for activins and growth differentiation factors. Endothelin "
     "receptor antagonists, prostacyclin receptor agonists (selexipag) and sGC stimulators (riociguat) are older "
     "pulmonary hypertension drug classes."),
    ("biotech", (2023, 7), "Nirsevimab",
     "Nirsevimab is a long-acting recombinant human IgG1 monoclonal antibody given as a single intramuscular dose to "
     "protect neonates and infants entering their first respiratory syncytial virus (RSV) season, and children up to "
     "24 months who remain vulnerable in their second season.",
     "What is the target of nirsevimab?",
     ["RSV attachment G glycoprotein", "RSV prefusion F protein", "Influenza hemagglutinin stem",
      "SARS-CoV-2 spike receptor-binding domain"], "B",
     "Nirsevimab binds a conserved epitope on the prefusion conformation of the RSV fusion (F) protein, blocking viral "
     "entry; an M252Y/S254T/T256E Fc modification extends its half-life to cover a season. It does not target the RSV "
     "G protein, influenza or SARS-CoV-2."),
    ("biotech", (2023, 8), "Talquetamab",
     "Talquetamab is a humanized bispecific IgG4 antibody given subcutaneously for adults with relapsed or refractory "
     "multiple myeloma after at least four prior lines of therapy. Taste changes, skin and nail toxicity and cytokine "
     "release syndrome are common adverse effects.",
     "What are the two targets of talquetamab?",
     ["BCMA and CD3", "CD20 and CD3", "GPRC5D and CD3", "SLAMF7 and CD3"], "C",
     "Talquetamab binds GPRC5D (G protein-coupled receptor class C group 5 member D) on myeloma cells and CD3 on T "
     "cells; GPRC5D expression in keratinized tissues explains the taste, skin and nail effects. Teclistamab and "
     "elranatamab target BCMA x CD3, glofitamab and epcoritamab CD20 x CD3; no approved bispecific targets SLAMF7 "
     "(elotuzumab is a SLAMF7 monoclonal antibody)."),
    ("small molecule", (2023, 12), "Iptacopan",
     "Iptacopan is an oral twice-daily complement inhibitor approved as monotherapy for adults with paroxysmal "
     "nocturnal hemoglobinuria and later for IgA nephropathy. Patients must be vaccinated "
     "against encapsulated bacteria.",
     "What is the target of iptacopan?",
     ["Complement factor B", "Complement component C5", "Complement factor D", "C1 esterase"], "A",
     "Iptacopan inhibits factor B of the alternative pathway, controlling both intravascular and C3-mediated "
     "extravascular hemolysis. Eculizumab and ravulizumab inhibit C5, danicopan inhibits factor D, and C1 esterase "
     "inhibitor is a hereditary angioedema therapy."),
    ("small molecule", (2023, 1), "Elacestrant",
     "Elacestrant is an oral drug approved for postmenopausal women or adult men with ER-positive, HER2-negative, "
     "ESR1-mutated advanced or metastatic breast cancer that has progressed after at least one line of endocrine "
     "therapy.",
     "What is the classification of elacestrant?",
     ["Aromatase inhibitor", "CDK4/6 inhibitor", "Gonadotropin-releasing hormone agonist",
      "Selective estrogen receptor degrader"], "D",
     "Elacestrant is the first oral selective estrogen receptor degrader (SERD): it binds the estrogen receptor, "
     "including ESR1-mutant forms, and induces its degradation. Aromatase inhibitors (letrozole), CDK4/6 inhibitors "
     "(palbociclib) and GnRH agonists (goserelin) are other breast cancer drug classes."),
    ("small molecule", (2023, 3), "Trofinetide",
     "Trofinetide is an orally administered synthetic analogue of glycine-proline-glutamate, the N-terminal tripeptide "
     "of insulin-like growth factor 1. Diarrhea and vomiting are its most common adverse effects.",
     "What is trofinetide indicated for?",
     ["Rett syndrome", "Dravet syndrome", "Fragile X syndrome", "Angelman syndrome"], "A",
     "Trofinetide is the first approved treatment for Rett syndrome in adults and children aged 2 years and older. "
     "Dravet syndrome is treated with drugs such as fenfluramine and stiripentol; no drug is approved specifically for "
     "fragile X or Angelman syndrome."),
    ("small molecule", (2023, 11), "Fruquintinib",
     "Fruquintinib is an oral kinase inhibitor approved for adults with metastatic colorectal cancer previously "
     "treated with fluoropyrimidine-, oxaliplatin- and irinotecan-based chemotherapy, an anti-VEGF biological "
     "therapy and, if RAS wild-type, an anti-EGFR therapy.",
     "What is the target of fruquintinib?",
     ["Epidermal growth factor receptor", "BRAF V600E", "KRAS G12C", "VEGFR-1, -2 and -3"], "D",
     "Fruquintinib is a highly selective inhibitor of vascular endothelial growth factor receptors 1, 2 and 3, "
     "blocking tumour angiogenesis. EGFR is targeted by cetuximab and panitumumab, BRAF V600E by encorafenib and "
     "KRAS G12C by sotorasib and adagrasib."),
    ("biotech", (2023, 12), "Exagamglogene autotemcel",
     "Exagamglogene autotemcel is a one-time autologous CD34+ hematopoietic stem and progenitor cell therapy modified "
     "ex vivo with CRISPR/Cas9, approved for patients aged 12 years and older with sickle cell disease with recurrent "
     "vaso-occlusive crises or with transfusion-dependent beta-thalassemia.",
     "Which genomic region is edited in exagamglogene autotemcel?",
     ["The sickle HBB mutation", "Alpha-globin gene (HBA1)", "Gamma-globin gene promoters",
      "BCL11A erythroid enhancer"], "D",
     "CRISPR/Cas9 disrupts the erythroid-specific enhancer of BCL11A, a repressor of gamma-globin, so erythroid cells "
     "produce fetal hemoglobin. It does not correct the HBB mutation or edit the alpha-globin gene; editing of "
     "gamma-globin promoters is a different investigational approach."),
]

DEV = [
    ("biotech", (2023, 6), "Rozanolixizumab",
     "Rozanolixizumab is a humanized IgG4 monoclonal antibody given by weekly subcutaneous infusion in cycles for "
     "adults with generalized myasthenia gravis who are anti-acetylcholine receptor or anti-MuSK antibody positive.",
     "What is the target of rozanolixizumab?",
     ["Neonatal Fc receptor (FcRn)", "Complement component C5", "CD19", "Nicotinic acetylcholine receptor (AChR)"], "A",
     "Rozanolixizumab blocks the neonatal Fc receptor, preventing IgG recycling and lowering circulating IgG including "
     "pathogenic autoantibodies. C5 is the target of eculizumab and zilucoplan, CD19 of inebilizumab; the "
     "acetylcholine receptor is the autoantigen, not the drug target."),
    ("biotech", (2023, 10), "Mirikizumab",
     "Mirikizumab is a humanized IgG4 monoclonal antibody approved for moderately to severely active ulcerative "
     "colitis in adults, given intravenously for induction and subcutaneously for maintenance.",
     "Which cytokine subunit does mirikizumab target?",
     ["IL-12/IL-23 p40 subunit", "IL-23 p19 subunit", "IL-17A", "Tumor necrosis factor alpha"], "B",
     "Mirikizumab binds the p19 subunit specific to interleukin-23, like risankizumab and guselkumab. Ustekinumab "
     "targets the p40 subunit shared by IL-12 and IL-23, secukinumab IL-17A, and infliximab or adalimumab TNF-alpha."),
    ("biotech", (2024, 7), "Donanemab",
     "Donanemab is a humanized IgG1 monoclonal antibody given by monthly intravenous infusion for early symptomatic "
     "Alzheimer disease with confirmed amyloid pathology; treatment can stop once amyloid plaques are cleared on PET.",
     "What does donanemab bind?",
     ["Soluble amyloid-beta monomers", "Microtubule-associated tau protein", "Pyroglutamate amyloid-beta in plaques",
      "Amyloid precursor protein cleavage enzymes"], "C",
     "Donanemab targets an N-terminal pyroglutamate-modified form of amyloid-beta (N3pG) present only in established "
     "plaques, leading to plaque clearance. It does not bind monomeric amyloid-beta, tau or the secretases that cleave "
     "amyloid precursor protein."),
    ("small molecule", (2023, 5), "Sulbactam and durlobactam",
     "Sulbactam-durlobactam is a co-packaged intravenous combination of a beta-lactam with intrinsic antibacterial "
     "activity and a diazabicyclooctane beta-lactamase inhibitor, approved for hospital-acquired and "
     "ventilator-associated bacterial pneumonia.",
     "Which pathogen is sulbactam-durlobactam indicated to treat?",
     ["Pseudomonas aeruginosa", "Klebsiella pneumoniae carbapenemase producers",
      "Methicillin-resistant Staphylococcus aureus", "Acinetobacter baumannii-calcoaceticus complex"], "D",
     "It is indicated for pneumonia caused by susceptible Acinetobacter baumannii-calcoaceticus complex: sulbactam "
     "binds Acinetobacter penicillin-binding proteins and durlobactam protects it from class A, C and D "
     "beta-lactamases. It is not active against Pseudomonas, is not a KPC-targeted agent and has no MRSA activity."),
    ("small molecule", (2023, 10), "Etrasimod",
     "Etrasimod is a once-daily oral drug approved for adults with moderately to severely active ulcerative colitis. "
     "It retains lymphocytes in lymph nodes, reducing their migration to the inflamed gut.",
     "What type of drug is etrasimod?",
     ["Janus kinase inhibitor", "Sphingosine 1-phosphate receptor modulator",
      "Anti-alpha-4 beta-7 integrin monoclonal antibody", "Interleukin-23 antibody"], "B",
     "Etrasimod is a sphingosine 1-phosphate receptor modulator (S1P1, S1P4 and S1P5), like ozanimod. Tofacitinib and "
     "upadacitinib are JAK inhibitors, vedolizumab is an alpha-4 beta-7 integrin antibody, and mirikizumab is an "
     "IL-23 antibody."),
    ("small molecule", (2023, 11), "Capivasertib",
     "Capivasertib is an oral kinase inhibitor used with fulvestrant for adults with hormone receptor-positive, "
     "HER2-negative advanced breast cancer with one or more PIK3CA, AKT1 or PTEN alterations after progression on "
     "endocrine therapy.",
     "What is the target of capivasertib?",
     ["Phosphoinositide 3-kinase alpha", "Mechanistic target of rapamycin", "AKT (AKT1, AKT2 and AKT3)",
      "Cyclin-dependent kinases 4 and 6 (CDK4/6)"], "C",
     "Capivasertib is an ATP-competitive inhibitor of all three AKT isoforms. Alpelisib and inavolisib inhibit "
     "PI3K-alpha, everolimus inhibits mTOR, and palbociclib, ribociclib and abemaciclib inhibit CDK4/6."),
]

COLUMNS = ["type", "created", "name", "description", "question", "option_A", "option_B", "option_C", "option_D",
           "answer", "explanation"]


def rows(items: list[tuple]) -> object:
    for kind, (y, m), name, desc, q, opts, ans, why in items:
        yield [kind, dt.datetime(y, m, 1), name, desc, q, *opts, ans, why]


def write(path: Path, items: list[tuple]) -> None:
    import openpyxl
    from openpyxl.styles import Font

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "selected"  # the sheet name of the authors' file
    ws.append(COLUMNS)
    for cell in ws[1]:
        cell.font = Font(bold=True)
    for row in rows(items):
        ws.append(row)
    for row in ws.iter_rows(min_row=2, min_col=2, max_col=2):
        for cell in row:
            cell.number_format = "yyyy-mm-dd h:mm:ss"
    wb.properties.creator = "climedbench"
    wb.properties.created = wb.properties.modified = dt.datetime(2024, 1, 1)
    wb.save(path)
    _fix_zip_times(path)


def _fix_zip_times(path: Path) -> None:
    """Rewrite the XLSX (a zip) with fixed entry times and a fixed 'modified' property (openpyxl stamps the save
    time), so rebuilding gives byte-identical files."""
    import re
    import zipfile

    with zipfile.ZipFile(path) as z:
        entries = [(info.filename, z.read(info.filename)) for info in z.infolist()]
    entries = [(n, re.sub(rb"(<dcterms:modified[^>]*>)[^<]*", rb"\g<1>2024-01-01T00:00:00Z", d)
                if n == "docProps/core.xml" else d) for n, d in entries]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            z.writestr(zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)


if __name__ == "__main__":
    d = DEMO / "PharmQA"
    d.mkdir(parents=True, exist_ok=True)
    write(d / "test.xlsx", TEST)
    write(d / "dev.xlsx", DEV)
