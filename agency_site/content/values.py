"""The site-wide values a content file may name as ``{name}``: one table, read from where
each value lives (the agency's settings and words in ``SITE``, the leads and deploy
settings, ``paths``). ``files.py`` fills them into every file it loads."""

from agency_site import paths
from agency_site.content import site
from agency_site.settings import get_settings


def site_values() -> dict[str, str]:
    """``{name}`` → value, for every site-wide name a content file may use."""
    agency, settings = site.SITE, get_settings()
    return {
        "agency.name": agency.name,
        "agency.tagline": agency.tagline,
        "agency.email": agency.email,
        "agency.mailto": agency.mailto,
        "agency.phone": agency.phone,
        "agency.tel": agency.tel,
        "agency.whatsapp": agency.whatsapp,
        "agency.whatsapp_url": agency.whatsapp_url,
        "agency.address": agency.address.one_line,
        "agency.opening_hours": agency.opening_hours,
        "agency.opening_hours_lower": agency.opening_hours.lower(),  # Inside a sentence.
        "agency.legal_name": agency.legal.company_name,
        "agency.nif": agency.legal.nif,
        "agency.registry": agency.legal.registry,
        # The purge's own setting (LEADS_RETENTION_MONTHS) and the backup timer's --keep.
        "leads.retention_months": str(settings.leads.retention_months),
        "backups.kept_days": str(settings.deploy.backup_keep),
        "leads.spam_keep_days": str(settings.leads.spam_keep_days),
        # The desk's audit log (DESK_AUDIT_MONTHS), purged by its daily round.
        "desk.audit_months": str(settings.desk.audit_months),
        "booking.pending_expiry_days": str(settings.booking.pending_expiry_days),
        "paths.home": paths.HOME,
        "paths.about": paths.ABOUT,
        "paths.case_studies": paths.CASE_STUDIES,
        "paths.careers": paths.CAREERS,
        "paths.privacy_policy": paths.PRIVACY_POLICY,
        "paths.terms_of_service": paths.TERMS_OF_SERVICE,
        "paths.cookies_policy": paths.COOKIES_POLICY,
        "paths.influencer_program": paths.INFLUENCER_PROGRAM,
        "paths.contact": paths.CONTACT,
        "paths.schedule": paths.SCHEDULE,
        "paths.portfolio": paths.PORTFOLIO,
        "paths.blog": paths.BLOG,
    }
