"""Small helpers every layer may use: errors with locations, value checks, text rules, safe reads
and atomic writes, the LRU, plain-data freezing, frontmatter, packaged resources, entry points."""
