"""Clinician rating: blinded multi-rater studies of model answers or benchmark items, a web app to rate them,
and agreement statistics (docs/RATING.md).

rubric.py (rubrics as data) → design.py (draw, assign, blind) → store.py (SQLite) → app.py (the web app)
→ analysis.py (Krippendorff's α, weighted κ, means, human vs automatic scores).
"""
