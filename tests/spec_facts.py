"""The specification's facts (../shared/SPEC.md), written out once so tests can fail against
them: routes, services, figures, prices, slots, jobs, buttons. The site's Spanish prose is
read from the content instead; a test checks that each fact here exists on the site, never
that nothing else does (a new service, case study or testimonial is not a failure).

When the specification changes a fact, this file is the one place a test changes.
"""

# SPEC §2 route table: every path the site serves (service pages under /services/).
ROUTES: frozenset[str] = frozenset(
    {
        "/",
        "/about",
        "/case-studies",
        "/careers",
        "/privacy-policy",
        "/terms-of-service",
        "/cookies-policy",
        "/influencer-program",
        "/contact",
        "/schedule",
    }
)
# SPEC §2/§3: the nine services, in the order of the menu.
SERVICE_IDS: tuple[str, ...] = (
    "branding",
    "social-media",
    "automation",
    "web-development",
    "advertising",
    "visual-content",
    "consulting",
    "training",
    "product-photography",
)
SERVICE_FEATURES = 6  # §3: each service lists six features.
# SPEC §2/§9: the case studies, in order, and the default one.
CASE_IDS: tuple[str, ...] = ("ecommerce-growth", "influencer-success", "b2b-leads")
DEFAULT_CASE_ID = "ecommerce-growth"
SERVICE_ROUTES = frozenset(f"/services/{service_id}" for service_id in SERVICE_IDS)
CASE_ROUTES = frozenset(f"/case-studies/{case_id}" for case_id in CASE_IDS)
ALL_ROUTES = ROUTES | SERVICE_ROUTES | CASE_ROUTES

# §9: the booking slots, in order, and how long a success message stays.
TIME_SLOTS: tuple[str, ...] = (
    "09:00",
    "10:00",
    "11:00",
    "12:00",
    "15:00",
    "16:00",
    "17:00",
    "18:00",
)
SUCCESS_MESSAGE_MS = 5000

# §9 marketing claims: About's figures as (value, label) in order.
ABOUT_STATS: tuple[tuple[str, str], ...] = (
    ("500+", "clientes satisfechos"),
    ("1000+", "proyectos"),
    ("300%", "ROI medio"),
    ("10+", "años"),
)
# §9 case study metrics as (value, label), in order.
CASE_METRICS: dict[str, tuple[tuple[str, str], ...]] = {
    "ecommerce-growth": (("+45%", "ventas"), ("1200+", "nuevos clientes"), ("2,5%", "conversión")),
    "influencer-success": (
        ("15K€+", "ingresos mensuales"),
        ("800+", "alumnos"),
        ("75%", "retención"),
    ),
    "b2b-leads": (("+65%", "leads"), ("15%", "tasa de cierre"), ("180%", "ROI")),
}
TESTIMONIALS_ON_HOME = 3  # §2 Home: three client testimonials with star ratings.

# §3 job postings: title -> (department, employment, yearly salary from, to, locality or
# None for remote).
JOBS: dict[str, tuple[str, str, int, int, str | None]] = {
    "Senior Marketing Manager": ("Marketing", "FULL_TIME", 45000, 60000, "Madrid"),
    "Full Stack Developer": ("Tecnología", "FULL_TIME", 40000, 55000, None),
    "Content Manager": ("Contenido", "FULL_TIME", 28000, 35000, "Madrid"),
}

# §2 "Service pages and their buttons": the pages each service page's buttons lead to.
TARGETS: dict[str, set[str]] = {
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
BUTTONS: dict[str, set[tuple[str, str]]] = {
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
HERO_BUTTONS: dict[str, tuple[tuple[str, str], ...]] = {
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
CLAIMS: dict[str, tuple[str, ...]] = {
    "consulting": ("+500", "+45%", "98%", "15+"),
    "training": ("+5000", "98%", "+20", "85%"),
}
PHOTOGRAPHY_CLAIMS = ("32%", "100%", "48-72")  # Plus the pure white background, RGB below.
PURE_WHITE = "RGB 255,255,255"
MAX_STUDENTS_PER_CLASS = 15

# Packs (§9): starting prices in euros, in order; for photography, the figures of each
# pack's features (main photos, detail photos, delivery...).
PACK_PRICES: dict[str, tuple[int, ...]] = {
    "branding": (99, 499, 999),
    "product-photography": (99, 199, 399),
}
PHOTOGRAPHY_PACK_FIGURES: tuple[tuple[str, ...], ...] = (
    ("1 ", "3 ", "72h"),
    ("1 ", "5 ", "2 ", "360°", "48h"),
    ("A+", "24h"),
)

# Training (§3): programmes with their duration, specialised courses, in-company offerings.
PROGRAMMES: tuple[tuple[str, str], ...] = (
    ("Marketing Digital Avanzado", "40 horas"),
    ("Analítica Digital", "30 horas"),
    ("Growth Hacking", "35 horas"),
    ("Personal Branding", "25 horas"),
)
COURSES = ("E-commerce & Amazon", "Diseño UX/UI", "Producción Audiovisual", "Automatización")
IN_COMPANY = ("Formación a Medida", "Consultoría y Mentoring")
