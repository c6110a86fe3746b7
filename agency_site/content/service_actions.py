"""Buttons the service pages share: the same label and target wherever they appear."""

from agency_site import paths
from agency_site.content.base import Link

REQUEST_INFO = Link(label="Solicitar información", href=paths.CONTACT)
REQUEST_QUOTE = Link(label="Solicitar presupuesto", href=paths.CONTACT)
ASK_QUESTIONS = Link(label="Consultar dudas", href=paths.CONTACT)
TALK_TO_US = Link(label="Hablemos de tu proyecto", href=paths.CONTACT)
FREE_CONSULTATION = Link(label="Solicitar consulta gratuita", href=paths.CONTACT)
SEE_CASE_STUDIES = Link(label="Ver casos de éxito", href=paths.CASE_STUDIES)
SEE_PORTFOLIO = Link(label="Ver portfolio", href=paths.PORTFOLIO)
SCHEDULE_CALL = Link(label="Agendar una llamada", href=paths.SCHEDULE)
