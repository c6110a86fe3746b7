"""The address checks of spam (``spam/screen.py``): a throwaway-mailbox domain, and optionally
one that receives no e-mail at all.

- **Disposable**: the domain, or a domain it is under, is in ``disposable-email-domains``
  (the community-kept list behind many sign-up forms; no network, updated with the
  package).
- **No MX** (``LEADS_CHECK_MX``, off by default): ``email-validator``'s deliverability
  check (MX records, else A/AAAA, null MX) with a short timeout, off the event loop.
  Only a definite answer counts: the domain does not exist, or takes no e-mail. DNS
  down, slow or failing in any other way is not suspect. Answers are kept per domain
  (a bounded LRU: an answer an hour, an unknown a minute), so a burst of submissions
  does not become a burst of lookups.
"""

import asyncio
import logging
from collections.abc import Callable

import dns.exception
import dns.resolver
from cachetools import TLRUCache
from disposable_email_domains import blocklist
from email_validator import EmailUndeliverableError
from email_validator.deliverability import validate_email_deliverability

from agency_site.leads.statuses import SpamReason

logger = logging.getLogger(__name__)

MX_TIMEOUT_S = 2.0
# Domains whose answer is kept, and for how long (seconds): a yes or no, an unknown.
MX_CACHE_SIZE = 4096
MX_KNOWN_S, MX_UNKNOWN_S = 3600.0, 60.0

# A domain's mail is: delivered (True), not (False), or cannot be told now (None).
Lookup = Callable[[str], bool | None]


def ascii_domain(email: str) -> str:
    """The domain of an address, lower case, in its ASCII (IDNA) form when it has one."""
    domain = email.rpartition("@")[2].strip().rstrip(".").lower()
    try:
        return domain.encode("idna").decode("ascii")
    except UnicodeError:
        return domain


def disposable(domain: str) -> bool:
    """Whether ``domain`` (ASCII) or a domain it is under is a throwaway-mailbox service."""
    labels = domain.split(".")
    return any(".".join(labels[i:]) in blocklist for i in range(len(labels) - 1))


def mx_lookup(timeout_s: float = MX_TIMEOUT_S) -> Lookup:
    """The DNS lookup of whether a domain receives e-mail, each bounded by ``timeout_s``."""
    resolvers: list[dns.resolver.Resolver] = []

    def lookup(domain: str) -> bool | None:
        try:
            if not resolvers:  # Reads /etc/resolv.conf once, at the first lookup.
                resolver = dns.resolver.Resolver()
                resolver.lifetime = timeout_s
                resolvers.append(resolver)
            info = validate_email_deliverability(domain, domain, dns_resolver=resolvers[0])
        except EmailUndeliverableError as error:
            # A definite answer, or email-validator's catch-all for anything else.
            definite = (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer, type(None))
            return False if isinstance(error.__cause__, definite) else None
        except (dns.exception.DNSException, OSError, ValueError):
            return None
        # Timed out, or no name server answered: email-validator lets it through, so do we.
        return None if "unknown-deliverability" in info else True

    return lookup


def _time_to_use(_domain: str, delivers: bool | None, now: float) -> float:
    return now + (MX_UNKNOWN_S if delivers is None else MX_KNOWN_S)


class AddressScreen:
    """Why an address is suspect (``check``): disposable, or, with ``lookup``, no MX."""

    def __init__(self, lookup: Lookup | None = None) -> None:
        self.lookup = lookup
        self._answers: TLRUCache = TLRUCache(maxsize=MX_CACHE_SIZE, ttu=_time_to_use)

    async def check(self, email: str) -> SpamReason | None:
        """The reason ``email`` is suspect, or None (also when DNS cannot tell)."""
        domain = ascii_domain(email)
        if disposable(domain):
            return SpamReason.DISPOSABLE
        if self.lookup is None:
            return None
        if domain in self._answers:
            delivers = self._answers[domain]
        else:
            delivers = await asyncio.to_thread(self.lookup, domain)
            self._answers[domain] = delivers
        return SpamReason.NO_MX if delivers is False else None
