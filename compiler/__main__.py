"""`python -m promptc` runs the promptc command line."""

from .commands.cli import main_exit

main_exit()
