"""The frozen data types that flow between the pipeline stages, one module per stage. No I/O, no Jinja."""
