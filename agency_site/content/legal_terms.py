"""The terms and conditions of use, with the LSSI-CE art. 10 identification."""

from agency_site import paths
from agency_site.content.base import Hero, Link
from agency_site.content.legal import IDENTITY, UPDATED, Bullets, LegalDocument, LegalSection
from agency_site.content.site import SITE

TERMS = LegalDocument(
    hero=Hero(
        eyebrow="Legal",
        heading="Términos y condiciones",
        intro=(
            "Condiciones de uso de este sitio web e información general exigida por la Ley "
            "34/2002 de servicios de la sociedad de la información (LSSI-CE)."
        ),
    ),
    updated=UPDATED,
    sections=(
        LegalSection(
            heading="Datos identificativos",
            body=(
                "En cumplimiento del artículo 10 de la Ley 34/2002, de 11 de julio, de servicios "
                "de la sociedad de la información y de comercio electrónico (LSSI-CE), estos "
                "son los datos del titular de este sitio web:",
                IDENTITY,
            ),
        ),
        LegalSection(
            heading="Objeto del sitio web",
            body=(
                f"Este sitio web presenta los servicios de {SITE.name}: marketing digital, "
                "desarrollo web, publicidad, contenido visual, consultoría, formación y "
                "fotografía de producto, y permite a los visitantes ponerse en contacto con "
                "nosotros y solicitar una consulta.",
                "El sitio tiene carácter informativo: no permite contratar servicios ni "
                "realizar pagos. Los precios que se indican son precios de partida, sin "
                "impuestos, y no constituyen una oferta vinculante; cada servicio se contrata "
                "mediante un presupuesto y un contrato propios.",
            ),
        ),
        LegalSection(
            heading="Condiciones de uso",
            body=(
                "El acceso al sitio web es libre y gratuito. Al utilizarlo aceptas estas "
                "condiciones y te comprometes a:",
                Bullets(
                    items=(
                        "Usar el sitio conforme a la ley, la buena fe y estas condiciones.",
                        "No facilitar en los formularios datos falsos ni datos de otras personas "
                        "sin su autorización.",
                        "No introducir virus ni código dañino, ni intentar acceder sin "
                        "autorización a nuestros sistemas.",
                        "No utilizar los formularios para enviar publicidad ni comunicaciones "
                        "masivas.",
                    )
                ),
            ),
        ),
        LegalSection(
            heading="Propiedad intelectual e industrial",
            body=(
                "Los textos, diseños, logotipos, código y demás contenidos de este sitio web "
                "pertenecen a su titular o a terceros que han autorizado su uso, y están "
                "protegidos por la normativa de propiedad intelectual e industrial. Las "
                "fotografías proceden del banco de imágenes Unsplash y se utilizan conforme a "
                "su licencia.",
                "Queda prohibida la reproducción, distribución, comunicación pública o "
                "transformación de estos contenidos sin autorización previa y por escrito, "
                "salvo para tu uso personal y privado.",
            ),
        ),
        LegalSection(
            heading="Responsabilidad",
            body=(
                "Cuidamos que la información del sitio sea correcta y esté actualizada, pero "
                "puede contener errores u omisiones. Las cifras de resultados que mostramos "
                "corresponden a proyectos anteriores y no garantizan los mismos resultados en "
                "otros proyectos.",
                "No garantizamos la disponibilidad ininterrumpida del sitio y no respondemos de "
                "los daños que puedan derivarse de interrupciones, errores técnicos o virus "
                "ajenos a nuestro control, salvo en los casos en que la ley lo imponga.",
            ),
        ),
        LegalSection(
            heading="Enlaces",
            body=(
                "El sitio contiene enlaces a páginas de terceros, como redes sociales, WhatsApp "
                "o la Agencia Española de Protección de Datos. No controlamos su contenido ni "
                "somos responsables de él. Si detectas que un enlace lleva a un contenido "
                "ilícito, avísanos y lo retiraremos, como prevé el artículo 17 de la LSSI-CE.",
            ),
        ),
        LegalSection(
            heading="Protección de datos y cookies",
            body=(
                "El tratamiento de los datos personales que nos facilitas se explica en la "
                "política de privacidad, y lo que el sitio guarda en tu navegador, en la "
                "política de cookies.",
                Link(label="Consultar la política de privacidad", href=paths.PRIVACY_POLICY),
                Link(label="Consultar la política de cookies", href=paths.COOKIES_POLICY),
            ),
        ),
        LegalSection(
            heading="Modificaciones",
            body=(
                "Podemos modificar estas condiciones para adaptarlas a cambios legales o del "
                "sitio web. Se aplica la versión publicada en el momento en que accedes a él.",
            ),
        ),
        LegalSection(
            heading="Legislación aplicable y jurisdicción",
            body=(
                "Estas condiciones se rigen por la legislación española. Para resolver "
                "cualquier controversia, las partes se someten a los juzgados y tribunales del "
                "domicilio del titular, salvo que la ley disponga otro fuero; si actúas como "
                "consumidor, serán competentes los de tu domicilio.",
            ),
        ),
    ),
)
