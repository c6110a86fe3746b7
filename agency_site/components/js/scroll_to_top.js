// The footer's back-to-top button (components/footer.py), run by rx.run_script (compiled
// to a function, not eval-ed: CSP). No smooth scrolling under prefers-reduced-motion.

window.scrollTo({top: 0, behavior: window.matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth'})
