"""Named Tailwind class strings shared by the components, so none is copied twice."""

CONTAINER = "mx-auto w-full max-w-6xl px-4 sm:px-6 lg:px-8"
FOCUS_RING = (
    "focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-indigo-600 "
    "focus-visible:ring-offset-2"
)
BUTTON_PRIMARY = (
    "inline-flex items-center justify-center gap-2 rounded-full bg-indigo-700 px-6 py-3 "
    "font-semibold text-white shadow-sm transition hover:bg-indigo-800 " + FOCUS_RING
)
BUTTON_SECONDARY = (
    "inline-flex items-center justify-center gap-2 rounded-full border border-indigo-700 "
    "bg-white px-6 py-3 font-semibold text-indigo-700 transition hover:bg-indigo-50 " + FOCUS_RING
)
NAV_LINK = (
    "rounded-md px-3 py-2 text-sm font-medium text-slate-800 hover:text-indigo-700 " + FOCUS_RING
)
SECTION = "py-16 sm:py-20"
EYEBROW = "text-sm font-semibold uppercase tracking-wider text-indigo-700"
H1 = "text-4xl font-extrabold tracking-tight text-slate-900 sm:text-5xl"
H2 = "text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl"
LEAD = "text-lg leading-8 text-slate-700"
