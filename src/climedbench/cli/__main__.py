"""`python -m climedbench.cli`."""

from climedbench.cli import main

main()
