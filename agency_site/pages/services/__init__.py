"""The nine service pages."""
