// The bootstrap of every prerendered page (reflex_ext/hydration.py): React Router's module
// preloads and its bootstrap run one frame after the first paint (at once in a hidden tab,
// which paints nothing). $BOOTSTRAP is replaced by React Router's own bootstrap lines, each
// recognised and turned into a statement of the async function.

const __preloads = $PRELOADS;
const __boot = async () => {
for (const href of __preloads) { const link = document.createElement('link'); link.rel = 'modulepreload'; link.href = href; document.head.appendChild(link); }
$BOOTSTRAP;
};
if (document.visibilityState === "visible") requestAnimationFrame(() => setTimeout(__boot, 0)); else setTimeout(__boot, 0);
