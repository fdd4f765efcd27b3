"""The template half of the pipeline: the section catalogue, the variables a section may read, provider
contributions, and the renderer that joins the two sides around the cache boundary."""
