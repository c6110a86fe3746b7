"""How many form submissions one address may make: the ``limits`` library, per client IP.

Every attempt counts (valid, invalid, crafted or honeypot), keyed on the visitor's
address as the backend resolves it behind ``REFLEX_TRUSTED_PROXY_HOPS`` proxies,
never on the browser session: a new socket is a new session, so a per-session
count could be reset at will. An IPv6 address counts for its /64, the block one
subscriber gets. With ``REFLEX_REDIS_URL`` the counts live in Redis and every
backend worker and host shares them; otherwise in this process's memory.

A submission past the limit is asked for a proof of work (``spam/challenge.py``); one
that carries it solved still counts, and passes only while the address has sent fewer
than ``per_ip`` solved ones past the limit in the window (``hit_solved``): a person who
was limited gets through after one challenge, a script that solves them (a CPU-second
each) gets at most twice the limit, never an unlimited number.

``network_of`` tells the network an address belongs to as a plugin's caps count it (an
IPv4 /24, an IPv6 /48: a site's whole allocation), and ``network_digest`` is what is kept
of it: a keyed digest (``network_key``: the site secret's for them), never the address nor
the network (a plugin's ``Hold``, a spooled line, what a plugin keeps).

Checking never blocks the event loop (the async API of ``limits``), and when Redis
cannot be reached the submission is let through with an ERROR in the log: losing
a lead costs more than letting a few extra through.
"""

import hashlib
import hmac
import ipaddress
import logging

from limits import RateLimitItemPerSecond
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter

from agency_site.leads.site_secret import NETWORK_DIGEST, keys
from agency_site.settings import Settings

logger = logging.getLogger(__name__)

# Prefix of the limiter's keys in a Redis shared with Reflex's own state.
KEY_PREFIX = "agency_site_leads"
# How long one Redis call of the limiter may take before the submission goes on without it.
REDIS_TIMEOUT_S = 2.0


def storage_for(redis_url: str | None) -> Storage:
    """Where the counts live: Redis when configured (shared by workers), else memory."""
    if not redis_url:
        return MemoryStorage()
    return RedisStorage(
        f"async+{redis_url}",
        implementation="redispy",
        key_prefix=KEY_PREFIX,
        socket_timeout=REDIS_TIMEOUT_S,
        socket_connect_timeout=REDIS_TIMEOUT_S,
    )


def address_key(client_ip: str) -> str:
    """The key an address counts under: the IPv4 address, an IPv6 /64, or the text as sent."""
    try:
        address = ipaddress.ip_address(client_ip.strip())
    except ValueError:
        return client_ip.strip()[:64] or "unknown"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def network_of(client_ip: str) -> str | None:
    """The network of ``client_ip`` as a plugin's caps count it: its /24 (an IPv4-mapped
    IPv6 address counts as IPv4), or its IPv6 /48 (what one site or subscriber may be
    given, so a /64 of its own per request makes no new network); None when it is no
    address. Never the address itself."""
    try:
        address = ipaddress.ip_address(client_ip.strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    prefix = 24 if address.version == 4 else 48
    return str(ipaddress.ip_network(f"{address}/{prefix}", strict=False))


def network_digest(client_ip: str, key: str = "") -> str | None:
    """A keyed digest of the network of ``client_ip`` (``network_of``), never the address
    nor the network; None when it is no address. ``key``: the site secret's for the
    digests (``network_key``: without one a /24's digest could be reversed by trying all of
    them)."""
    network = network_of(client_ip)
    if network is None:
        return None
    return hmac.new(key.encode(), network.encode(), hashlib.sha256).hexdigest()


def network_key(settings: Settings) -> str:
    """The key of the visitors' network digests: the site secret's newest for them
    (``site_secret.NETWORK_DIGEST``; every host shares it, so the digests compare across
    them); "" when the site has no secret (the digests unkeyed)."""
    found = keys(settings, NETWORK_DIGEST)
    return found[0] if found else ""


class RateLimiter:
    """Allows ``per_ip`` submissions per address in any ``window_s`` seconds (moving window),
    and past them ``per_ip`` more that carry a solved proof of work (``hit_solved``)."""

    def __init__(self, storage: Storage, per_ip: int, window_s: int) -> None:
        self.storage = storage
        self.item = RateLimitItemPerSecond(per_ip, window_s)
        self._limiter = MovingWindowRateLimiter(storage)

    async def hit(self, client_ip: str) -> bool:
        """Count one submission from ``client_ip``; whether it is within the limit."""
        return await self._hit("submit", client_ip)

    async def hit_solved(self, client_ip: str) -> bool:
        """Count one submission from ``client_ip`` past the limit that carries a solved proof
        of work; whether the address is still within its ceiling of those."""
        return await self._hit("solved", client_ip)

    async def _hit(self, what: str, client_ip: str) -> bool:
        try:
            return await self._limiter.hit(self.item, what, address_key(client_ip))
        except Exception as error:  # Redis down or slow: let the lead through.
            logger.error(
                "The rate limit could not be checked (%s); the submission goes on.",
                type(error).__name__,
            )
            return True
