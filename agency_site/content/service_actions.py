"""Buttons the service pages share: the same label and target wherever they appear."""

from agency_site import paths
from agency_site.content.base import Action

REQUEST_INFO = Action(label="Solicitar información", href=paths.CONTACT)
REQUEST_QUOTE = Action(label="Solicitar presupuesto", href=paths.CONTACT)
ASK_QUESTIONS = Action(label="Consultar dudas", href=paths.CONTACT)
TALK_TO_US = Action(label="Hablemos de tu proyecto", href=paths.CONTACT)
FREE_CONSULTATION = Action(label="Solicitar consulta gratuita", href=paths.CONTACT)
SEE_CASE_STUDIES = Action(label="Ver casos de éxito", href=paths.CASE_STUDIES)
SEE_PORTFOLIO = Action(label="Ver portfolio", href=paths.PORTFOLIO)
SCHEDULE_CALL = Action(label="Agendar una llamada", href=paths.SCHEDULE)
