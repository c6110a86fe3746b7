// React hook of components/reveal.py: marks each [data-reveal] element data-revealed as it
// scrolls into view. Only while it runs does <html> carry $JS_CLASS (the class that hides
// unrevealed sections in assets/site.css), and never under prefers-reduced-motion.

useEffect(() => {
  if (!("IntersectionObserver" in window)) return;
  if (window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  const root = document.documentElement;
  const observer = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      entry.target.dataset.revealed = "true";
      observer.unobserve(entry.target);
    }
  }, { rootMargin: "0px 0px -10% 0px" });
  document.querySelectorAll("[data-reveal]").forEach((el) => observer.observe(el));
  root.classList.add($JS_CLASS);
  return () => {
    observer.disconnect();
    root.classList.remove($JS_CLASS);
  };
}, []);
