"""The `promptc` command line: the front end (`cli`), the flags and exit codes every command shares
(`common`), and one module per command."""
