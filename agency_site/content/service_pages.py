"""Copy of the nine service pages, keyed by service id."""

from agency_site.content.base import Hero

HEROES: dict[str, Hero] = {
    "branding": Hero(
        eyebrow="Branding y Diseño",
        heading="Una marca que se recuerda",
        intro=(
            "Diseñamos identidades visuales coherentes y memorables: logotipo, colores, "
            "tipografías y aplicaciones para que tu marca transmita lo que eres."
        ),
    ),
    "social-media": Hero(
        eyebrow="Gestión de Redes Sociales",
        heading="Redes sociales que generan negocio",
        intro=(
            "Estrategia, contenido y gestión de comunidad para que tus perfiles dejen de ser "
            "un escaparate y se conviertan en una fuente constante de clientes."
        ),
    ),
    "automation": Hero(
        eyebrow="Automatización de Marketing",
        heading="Tu marketing trabajando las 24 horas",
        intro=(
            "Automatizamos la captación, el seguimiento y la venta con embudos, email "
            "marketing e integraciones con tu CRM, para que no se escape ninguna oportunidad."
        ),
    ),
    "web-development": Hero(
        eyebrow="Desarrollo Web y E-commerce",
        heading="Webs y tiendas online que venden",
        intro=(
            "Desarrollamos webs corporativas, tiendas online y landing pages rápidas, seguras "
            "y optimizadas para buscadores y para la conversión."
        ),
    ),
    "advertising": Hero(
        eyebrow="Publicidad Digital",
        heading="Publicidad que se mide en ventas",
        intro=(
            "Campañas en Google, Meta, TikTok y LinkedIn diseñadas y optimizadas cada semana "
            "para llegar a tu cliente ideal con el mejor retorno de la inversión."
        ),
    ),
    "visual-content": Hero(
        eyebrow="Contenido Visual",
        heading="Imágenes y vídeos que cuentan tu historia",
        intro=(
            "Fotografía, vídeo y diseño gráfico profesional para tu web, tus redes sociales y "
            "tus campañas, con un estilo coherente con tu marca."
        ),
    ),
    "consulting": Hero(
        eyebrow="Consultoría Empresarial",
        heading="Decisiones estratégicas basadas en datos",
        intro=(
            "Analizamos tu negocio, tu mercado y tu competencia para diseñar contigo un plan "
            "de crecimiento digital realista, medible y rentable."
        ),
    ),
    "training": Hero(
        eyebrow="Formación Profesional",
        heading="Formación práctica en marketing digital",
        intro=(
            "Programas impartidos por profesionales en activo, en grupos reducidos y con casos "
            "reales, para que apliques lo aprendido desde el primer día."
        ),
    ),
    "product-photography": Hero(
        eyebrow="Fotografía de Producto para Amazon",
        heading="Fotos de producto que venden en Amazon",
        intro=(
            "Fotografía profesional que cumple todos los requisitos de Amazon y destaca tu "
            "producto frente a la competencia para aumentar tus conversiones."
        ),
    ),
}
