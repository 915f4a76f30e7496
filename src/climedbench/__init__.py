"""climedbench: evaluate large language models on real Chinese clinical work."""

__version__ = "0.1.0"
