"""Copy of the legal pages: privacy policy, terms and conditions, cookie policy."""

from agency_site.content.base import Hero

PRIVACY_HERO = Hero(
    eyebrow="Legal",
    heading="Política de privacidad",
    intro=(
        "Cómo tratamos los datos personales que nos facilitas a través de este sitio web, "
        "con qué finalidad y cuáles son tus derechos según el RGPD y la LOPDGDD."
    ),
)
TERMS_HERO = Hero(
    eyebrow="Legal",
    heading="Términos y condiciones",
    intro=(
        "Condiciones de uso de este sitio web e información general exigida por la Ley "
        "34/2002 de servicios de la sociedad de la información (LSSI-CE)."
    ),
)
COOKIES_HERO = Hero(
    eyebrow="Legal",
    heading="Política de cookies",
    intro=(
        "Qué guarda este sitio web en tu navegador, para qué lo usa y cómo puedes "
        "eliminarlo. No utilizamos cookies de analítica ni de publicidad."
    ),
)
