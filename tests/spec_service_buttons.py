"""SPEC §2 "Service pages and their buttons", written out so tests can fail against it."""

SPEC_TARGETS: dict[str, set[str]] = {
    "branding": {"/contact", "/portfolio"},
    "social-media": {"/contact", "/case-studies"},
    "automation": {"/contact", "/case-studies"},
    "web-development": {"/contact", "/portfolio", "/schedule"},
    "advertising": {"/contact", "/case-studies"},
    "visual-content": {"/contact", "/portfolio"},
    "consulting": {"/contact", "/case-studies"},
    "training": {"/contact", "/schedule"},
    "product-photography": {"/contact", "/portfolio"},
}
