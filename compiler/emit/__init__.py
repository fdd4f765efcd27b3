"""Output formats: the prompt as text, JSON, provider payloads, context reports and bundles."""
