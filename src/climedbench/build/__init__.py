"""`climedbench build`: a benchmark from a hospital's own de-identified notes, the CliMedBench way (paper §2.2).

Steps, one module each: records (read notes), preprocess (quality filters, near-duplicates), segments (guideline
→ typed sections and sentences), keys (the answer taken from the note's own section), distractors (other
patients' segments in a similarity band), scenarios (templates as data), generate (one candidate item), llm1
(the optional LLM1 rewrite), candidates (the candidate file), state (resume), pipeline (the whole run), export
(the suite folder). See docs/BUILD.md.
"""
