"""The template stages: the section catalogue, the variables a section may read, and the renderer
that joins the two sides around the cache boundary."""
