"""`climedbench build`: a benchmark built from a hospital's own de-identified records (docs/BUILD.md)."""
