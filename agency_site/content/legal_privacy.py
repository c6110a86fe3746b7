"""The privacy policy (RGPD and LOPDGDD)."""

from agency_site import paths
from agency_site.content.base import Hero, Link
from agency_site.content.legal import AEPD, IDENTITY, UPDATED, Bullets, LegalDocument, LegalSection
from agency_site.content.site import SITE
from agency_site.settings import get_settings

# The same setting the backend's daily purge and `leads purge` use (LEADS_RETENTION_MONTHS).
RETENTION_MONTHS = get_settings().leads.retention_months
# Nightly copies of the leads database kept (DEPLOY_BACKUP_KEEP, the backup timer's --keep).
BACKUP_DAYS = get_settings().deploy.backup_keep

PRIVACY = LegalDocument(
    hero=Hero(
        eyebrow="Legal",
        heading="Política de privacidad",
        intro=(
            "Cómo tratamos los datos personales que nos facilitas a través de este sitio web, "
            "con qué finalidad y cuáles son tus derechos según el RGPD y la LOPDGDD."
        ),
    ),
    updated=UPDATED,
    sections=(
        LegalSection(
            heading="Responsable del tratamiento",
            body=(
                "El responsable del tratamiento de los datos personales que se recogen en este "
                "sitio web es su titular:",
                IDENTITY,
                f"Para cualquier cuestión sobre la protección de tus datos puedes escribirnos a "
                f"{SITE.email}.",
            ),
        ),
        LegalSection(
            heading="Qué datos tratamos",
            body=(
                "Solo tratamos los datos que tú mismo nos facilitas:",
                Bullets(
                    items=(
                        "Formulario de contacto de la página de inicio: tu dirección de correo "
                        "electrónico.",
                        "Formulario de la página «Agendar consulta»: nombre, correo electrónico, "
                        "teléfono, fecha y hora preferidas y, si lo escribes, tu mensaje.",
                        "Candidaturas: los datos de tu currículum y de tu mensaje cuando nos "
                        "escribes por correo electrónico para optar a un puesto.",
                        "Contacto directo por correo electrónico, teléfono o WhatsApp: los datos "
                        "que nos facilites en la conversación.",
                    )
                ),
                "No te pedimos datos de categorías especiales (salud, ideología, origen "
                "étnico…); por favor, no los incluyas en tus mensajes. Este sitio no está "
                "dirigido a menores de 14 años, que no deben facilitarnos sus datos.",
            ),
        ),
        LegalSection(
            heading="Para qué usamos tus datos",
            body=(
                Bullets(
                    items=(
                        "Responder a las solicitudes de información que nos envías desde el "
                        "formulario de la página de inicio.",
                        "Gestionar las consultas que reservas desde la página «Agendar "
                        "consulta»: confirmar la cita, prepararla y atenderla.",
                        "Valorar tu candidatura en nuestros procesos de selección cuando nos "
                        "envías tu currículum por correo electrónico.",
                        "Atender las consultas que nos haces por correo electrónico, teléfono o "
                        "WhatsApp y, si nos lo pides, enviarte un presupuesto.",
                    )
                ),
                "No tomamos decisiones automatizadas ni elaboramos perfiles, y no usamos tus "
                "datos para enviarte publicidad que no hayas pedido.",
            ),
        ),
        LegalSection(
            heading="Legitimación: por qué podemos tratarlos",
            body=(
                Bullets(
                    items=(
                        "Tu consentimiento (artículo 6.1.a del RGPD), que nos das al enviar "
                        "voluntariamente un formulario o escribirnos. Puedes retirarlo en "
                        "cualquier momento, sin que ello afecte a la licitud del tratamiento "
                        "anterior.",
                        "La aplicación de medidas precontractuales a petición tuya (artículo "
                        "6.1.b del RGPD), cuando nos pides información, un presupuesto o una "
                        "consulta sobre nuestros servicios, o cuando te presentas a un proceso "
                        "de selección.",
                        "El cumplimiento de obligaciones legales (artículo 6.1.c del RGPD), "
                        "para conservar los datos que exigen las leyes fiscales y mercantiles si "
                        "llegamos a contratar.",
                        "Nuestro interés legítimo en mantener la seguridad del sitio web "
                        "(artículo 6.1.f del RGPD), para los registros técnicos del servidor.",
                    )
                ),
                "Los datos marcados como obligatorios en los formularios son necesarios para "
                "atender tu solicitud: si no nos los facilitas, no podremos hacerlo.",
            ),
        ),
        LegalSection(
            heading="Destinatarios y encargados del tratamiento",
            body=(
                "No cedemos tus datos a terceros, salvo obligación legal. Para prestar el "
                "servicio acceden a ellos los siguientes proveedores, que actúan como "
                "encargados del tratamiento con el contrato que exige el artículo 28 del RGPD:",
                Bullets(
                    items=(
                        "EmailJS (EmailJS Pte. Ltd.), encargado del tratamiento que entrega en "
                        "nuestro buzón los correos electrónicos con los datos de los formularios "
                        "de la web.",
                        "El proveedor de alojamiento (hosting) del sitio web, en cuyos servidores "
                        "se guardan las solicitudes recibidas y los registros técnicos.",
                        "Nuestro proveedor de correo electrónico, en el que recibimos y "
                        "guardamos los mensajes que nos envías.",
                    )
                ),
            ),
        ),
        LegalSection(
            heading="Transferencias internacionales",
            body=(
                "EmailJS Pte. Ltd. está establecida en Singapur, fuera del Espacio Económico "
                "Europeo. Por eso, cuando envías un formulario, los datos que contiene se "
                "transfieren a EmailJS para que nos entregue el correo. Esta transferencia se "
                "ampara en las garantías del contrato de encargo del tratamiento suscrito con "
                "EmailJS (artículos 28 y 46 del RGPD); puedes pedirnos información sobre ellas "
                "escribiéndonos.",
                "Aparte de este envío a través de EmailJS, no realizamos transferencias "
                "internacionales de datos.",
            ),
        ),
        LegalSection(
            heading="Cuánto tiempo conservamos tus datos",
            body=(
                Bullets(
                    items=(
                        "Solicitudes enviadas desde los formularios de la web (contacto y "
                        "«Agendar consulta»): las guardamos en la base de datos del sitio hasta "
                        f"{RETENTION_MONTHS} meses después de tu última solicitud, es decir, "
                        "de la más reciente que recibimos con tu dirección de correo "
                        "electrónico (sin distinguir mayúsculas de minúsculas). Pasado ese "
                        "plazo, el sistema las borra todas automáticamente; lo comprueba una "
                        "vez al día. Los correos electrónicos que esas solicitudes generan en "
                        "nuestro buzón los borramos en el mismo plazo.",
                        "Consultas que nos haces directamente por correo electrónico, teléfono "
                        f"o WhatsApp: mientras las atendemos y hasta {RETENTION_MONTHS} meses "
                        "después de nuestra última comunicación; después las borramos.",
                        "Candidaturas: mientras dura el proceso de selección y, si nos autorizas "
                        "a tenerte en cuenta para futuras vacantes, hasta 12 meses.",
                        "Si llegamos a contratar, conservamos los datos necesarios durante los "
                        "plazos que exigen las leyes fiscales y mercantiles (con carácter "
                        "general, seis años) y, después, bloqueados mientras puedan derivarse "
                        "responsabilidades.",
                        "Copias de seguridad: la base de datos de solicitudes se copia cada noche "
                        f"y cada copia se conserva {BACKUP_DAYS} días, solo para recuperarla si "
                        "se pierde. Un dato que borramos desaparece también de las copias, como "
                        f"máximo, {BACKUP_DAYS} días después.",
                        "Registros técnicos del servidor: solo el tiempo imprescindible para "
                        "garantizar la seguridad del servicio.",
                    )
                ),
            ),
        ),
        LegalSection(
            heading="Tus derechos",
            body=(
                "Puedes ejercer en cualquier momento los siguientes derechos:",
                Bullets(
                    items=(
                        "Acceso: saber si tratamos tus datos y obtener una copia.",
                        "Rectificación: corregir los datos inexactos o incompletos.",
                        "Supresión: pedir que borremos tus datos cuando ya no sean necesarios o "
                        "retires tu consentimiento.",
                        "Oposición: oponerte a que tratemos tus datos por motivos relacionados "
                        "con tu situación particular.",
                        "Limitación del tratamiento: pedir que conservemos tus datos sin usarlos "
                        "mientras se resuelve una reclamación.",
                        "Portabilidad: recibir tus datos en un formato estructurado y de uso "
                        "común, o que los enviemos a otro responsable.",
                    )
                ),
            ),
        ),
        LegalSection(
            heading="Cómo ejercer tus derechos",
            body=(
                f"Escríbenos a {SITE.email} o por correo postal a {SITE.address.one_line}, "
                "indicando el derecho que quieres ejercer. Si tenemos dudas razonables sobre tu "
                "identidad, podremos pedirte la información adicional necesaria para "
                "confirmarla. Te responderemos en el plazo de un mes, ampliable en dos meses "
                "más en casos complejos, como prevé el artículo 12 del RGPD.",
                "Para el acceso, buscamos todas las solicitudes guardadas con tu dirección de "
                "correo electrónico (sin distinguir mayúsculas de minúsculas), de los dos "
                "formularios, y te enviamos una copia completa de lo que contienen: los datos "
                "que escribiste, la fecha en que las recibimos y si ya nos llegaron por correo "
                "electrónico. Para la supresión, borramos todas esas solicitudes de la base de "
                "datos del sitio y los correos que generaron en nuestro buzón.",
                Link(label=f"Escribir a {SITE.email}", href=SITE.mailto),
            ),
        ),
        LegalSection(
            heading="Reclamación ante la AEPD",
            body=(
                "Si consideras que no hemos tratado tus datos correctamente, tienes derecho a "
                "presentar una reclamación ante la Agencia Española de Protección de Datos "
                "(AEPD), la autoridad de control en España. Te agradeceremos que antes nos lo "
                "comuniques para intentar resolverlo.",
                AEPD,
            ),
        ),
        LegalSection(
            heading="Seguridad",
            body=(
                "Aplicamos medidas técnicas y organizativas adecuadas para proteger tus datos: "
                "la comunicación con el sitio viaja cifrada, el acceso a las solicitudes está "
                "restringido a las personas de nuestro equipo que las atienden y nuestros "
                "proveedores están obligados a mantener la confidencialidad.",
            ),
        ),
        LegalSection(
            heading="Cookies",
            body=(
                "Este sitio no utiliza cookies de analítica ni de publicidad. Lo que guarda en "
                "tu navegador se explica en la política de cookies.",
                Link(label="Consultar la política de cookies", href=paths.COOKIES_POLICY),
            ),
        ),
        LegalSection(
            heading="Cambios en esta política",
            body=(
                "Podemos actualizar esta política para adaptarla a cambios legales o en "
                "nuestros servicios. La fecha de la última actualización figura al principio "
                "de esta página.",
            ),
        ),
    ),
)
