"""What a person looks at: the prompt map and the cache timeline as self-contained HTML pages,
and the short warnings summary `render` prints."""
