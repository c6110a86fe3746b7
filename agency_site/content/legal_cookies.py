"""The cookie policy: exactly what the built site stores in the browser, and why.

The storage items were read from the production build (``.web/utils/state.js``,
``react-theme.js`` and React Router's scroll restoration) and checked in a browser;
``tests/e2e/test_legal_pages.py`` fails if the site starts storing anything not listed.
"""

from agency_site.content.base import Hero
from agency_site.content.legal import (
    UPDATED,
    Bullets,
    LegalDocument,
    LegalSection,
    StorageItem,
    StorageTable,
)
from agency_site.content.site import SITE

_SESSION = "Almacenamiento de sesión (sessionStorage)"
_UNTIL_TAB_CLOSES = "Hasta que cierras la pestaña"
_FIRST_PARTY = "Propia"

STORAGE = StorageTable(
    items=(
        StorageItem(
            name="token",
            storage=_SESSION,
            purpose=(
                "Identificador aleatorio de la pestaña que conecta la página con nuestro "
                "servidor para que funcionen los formularios de contacto y de reserva de "
                "consulta. No incluye tu nombre ni tus datos de contacto."
            ),
            duration=_UNTIL_TAB_CLOSES,
            party=_FIRST_PARTY,
        ),
        StorageItem(
            name="react-router-scroll-positions",
            storage=_SESSION,
            purpose=(
                "Recuerda en qué punto de cada página estabas para devolverte a él cuando usas "
                "los botones de atrás y adelante del navegador."
            ),
            duration=_UNTIL_TAB_CLOSES,
            party=_FIRST_PARTY,
        ),
        StorageItem(
            name="reflex_last_reloaded_on_error",
            storage=_SESSION,
            purpose=(
                "Solo se crea si la página tiene que recargarse por un error o por una "
                "actualización del sitio: guarda la hora de esa recarga para no repetirla en "
                "bucle."
            ),
            duration=_UNTIL_TAB_CLOSES,
            party=_FIRST_PARTY,
        ),
        StorageItem(
            name="theme",
            storage="Almacenamiento local (localStorage)",
            purpose=(
                "Esquema de colores con el que se dibuja la página. Su valor es siempre "
                "«light» (claro) y no identifica a nadie."
            ),
            duration="Hasta que borras los datos del sitio en tu navegador",
            party=_FIRST_PARTY,
        ),
    )
)

COOKIES = LegalDocument(
    hero=Hero(
        eyebrow="Legal",
        heading="Política de cookies",
        intro=(
            "Qué guarda este sitio web en tu navegador, para qué lo usa y cómo puedes "
            "eliminarlo. No utilizamos cookies de analítica ni de publicidad."
        ),
    ),
    updated=UPDATED,
    sections=(
        LegalSection(
            heading="Qué son las cookies",
            body=(
                "Las cookies son pequeños archivos que un sitio web guarda en tu navegador. "
                "Otras tecnologías, como el almacenamiento local (localStorage) y el "
                "almacenamiento de sesión (sessionStorage) del navegador, sirven para guardar "
                "información parecida. Esta política explica todo lo que este sitio guarda en "
                "tu navegador, sea cual sea la tecnología.",
            ),
        ),
        LegalSection(
            heading="Qué guarda este sitio en tu navegador",
            body=(
                "Este sitio web no instala cookies, ni propias ni de terceros, y no utiliza "
                "ninguna tecnología de analítica, publicidad, redes sociales o seguimiento. Lo "
                "único que guarda en tu navegador son estos datos técnicos, todos propios: los "
                "crea este mismo sitio y no se comparten con nadie.",
                STORAGE,
            ),
        ),
        LegalSection(
            heading="Por qué no te pedimos consentimiento",
            body=(
                "Todos estos datos son estrictamente necesarios para prestarte el servicio que "
                "pides al visitar el sitio: mostrar las páginas, navegar entre ellas y enviar "
                "los formularios. El artículo 22.2 de la LSSI-CE exceptúa este tipo de "
                "almacenamiento de la obligación de pedir tu consentimiento, y por eso este "
                "sitio no muestra un aviso de cookies.",
                "Si en el futuro incorporamos cookies que no sean necesarias, como las de "
                "analítica, te pediremos antes tu consentimiento y podrás rechazarlas con la "
                "misma facilidad con la que las aceptas.",
            ),
        ),
        LegalSection(
            heading="Imágenes de un proveedor externo",
            body=(
                "Las fotografías del sitio se cargan desde el servicio de imágenes de Unsplash "
                "(images.unsplash.com). Al mostrarlas, tu navegador se conecta a los servidores "
                "de ese proveedor, que recibe tu dirección IP y los datos técnicos de cualquier "
                "petición web (navegador, idioma y página de origen). Nosotros no le pedimos "
                "que instale cookies; el tratamiento que haga de esos datos se rige por su "
                "propia política de privacidad.",
            ),
        ),
        LegalSection(
            heading="Cómo borrar estos datos",
            body=(
                "Los datos de sesión se borran solos al cerrar la pestaña. Para borrar también "
                "el dato local («theme»), o todos a la vez:",
                Bullets(
                    items=(
                        "Pulsa el icono que aparece junto a la dirección de la página, entra en "
                        "la configuración del sitio y elige borrar sus datos.",
                        "O usa la opción «Borrar datos de navegación» (o «Borrar historial "
                        "reciente») de tu navegador y marca «Cookies y otros datos de sitios».",
                        "En la navegación privada o de incógnito, todo se borra al cerrar la "
                        "ventana.",
                    )
                ),
                "Si bloqueas el almacenamiento del navegador para este sitio, las páginas se "
                "seguirán mostrando, pero es posible que los formularios no funcionen.",
            ),
        ),
        LegalSection(
            heading="Cambios y contacto",
            body=(
                "Si cambia lo que el sitio guarda en tu navegador, actualizaremos esta política "
                "y su fecha. Para cualquier duda sobre ella, escríbenos a "
                f"{SITE.email}.",
            ),
        ),
    ),
)
