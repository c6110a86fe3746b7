"""SPEC §2 "Service pages and their buttons", §3 and §9's service figures, written out so
tests can fail against them (the site's Spanish prose is read from the content instead)."""

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

# The buttons §2 names, as (label, target): every button of these pages is one of them.
SPEC_BUTTONS: dict[str, set[tuple[str, str]]] = {
    "consulting": {
        ("Solicitar consulta gratuita", "/contact"),
        ("Ver casos de éxito", "/case-studies"),
        ("Consultar dudas", "/contact"),
    },
    "training": {
        ("Ver programas formativos", "/contact"),
        ("Agendar asesoría gratuita", "/schedule"),
        ("Más información", "/contact"),  # A programme card's, or 'Solicitar información'.
        ("Solicitar información", "/contact"),
    },
    "product-photography": {
        ("Solicitar presupuesto", "/contact"),
        ("Ver portfolio", "/portfolio"),
        ("Solicitar información", "/contact"),
        ("Consultar dudas", "/contact"),
    },
}
# The hero's buttons, in order, where §2 lists them first.
SPEC_HERO_BUTTONS: dict[str, tuple[tuple[str, str], ...]] = {
    "consulting": (
        ("Solicitar consulta gratuita", "/contact"),
        ("Ver casos de éxito", "/case-studies"),
    ),
    "training": (
        ("Ver programas formativos", "/contact"),
        ("Agendar asesoría gratuita", "/schedule"),
    ),
    "product-photography": (("Solicitar presupuesto", "/contact"), ("Ver portfolio", "/portfolio")),
}

# Claims (§2, §9), as the figures the stats show, in order.
SPEC_CLAIMS: dict[str, tuple[str, ...]] = {
    "consulting": ("+500", "+45%", "98%", "15+"),
    "training": ("+5000", "98%", "+20", "85%"),
}
PHOTOGRAPHY_CLAIMS = ("32%", "100%", "48-72")  # Plus the pure white background, RGB below.
PURE_WHITE = "RGB 255,255,255"
MAX_STUDENTS_PER_CLASS = 15

# Packs (§9): starting prices in euros, in order; for photography, the figures of each
# pack's features (main photos, detail photos, delivery...).
SPEC_PACK_PRICES: dict[str, tuple[int, ...]] = {
    "branding": (99, 499, 999),
    "product-photography": (99, 199, 399),
}
PHOTOGRAPHY_PACK_FIGURES: tuple[tuple[str, ...], ...] = (
    ("1 ", "3 ", "72h"),
    ("1 ", "5 ", "2 ", "360°", "48h"),
    ("A+", "24h"),
)

# Training (§3): programmes with their duration, specialised courses, in-company offerings.
SPEC_PROGRAMMES: tuple[tuple[str, str], ...] = (
    ("Marketing Digital Avanzado", "40 horas"),
    ("Analítica Digital", "30 horas"),
    ("Growth Hacking", "35 horas"),
    ("Personal Branding", "25 horas"),
)
SPEC_COURSES = ("E-commerce & Amazon", "Diseño UX/UI", "Producción Audiovisual", "Automatización")
SPEC_IN_COMPANY = ("Formación a Medida", "Consultoría y Mentoring")
