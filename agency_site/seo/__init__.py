"""Search engines and sharing: absolute URLs, head tags, JSON-LD and the files crawlers read."""
