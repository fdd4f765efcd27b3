"""`python -m compiler` runs the promptc command line."""

from .cli import main_exit

main_exit()
