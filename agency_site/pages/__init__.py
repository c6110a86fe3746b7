"""One module per route; ``services/`` holds the nine service pages."""
