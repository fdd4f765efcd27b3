"""Built-in section templates, defaults and the seed workspace, shipped inside the wheel."""
