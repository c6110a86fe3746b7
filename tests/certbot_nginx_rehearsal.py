"""Certbot's own nginx plugin against the rendered site, offline: what ``certbot renew``
does on a prepared host (Debian's ``certbot.timer``) up to the point where Let's Encrypt
would fetch the challenge. Run by tests/test_deploy.py with Debian's ``python3`` (certbot
and its plugin are Debian's packages, outside the project's venv)::

    python3 tests/certbot_nginx_rehearsal.py NGINX_CONF DOMAIN HTTP_PORT HTTPS_PORT WORKDIR

It prepares the plugin on ``NGINX_CONF`` (which runs ``nginx -t``), makes it answer one
HTTP-01 challenge for ``DOMAIN`` (the plugin edits the configuration and reloads nginx),
prints the challenge's path and the answer nginx must give, waits for a line on stdin,
then cleans up (the configuration back as it was, nginx reloaded) and prints ``clean``.
"""

import sys
from pathlib import Path
from unittest import mock

import josepy as jose
from acme import challenges, messages
from certbot import achallenges, configuration
from certbot._internal import constants
from certbot_nginx._internal import configurator
from cryptography.hazmat.primitives.asymmetric import rsa


def main() -> None:
    conf, domain, http_port, https_port, work = sys.argv[1:6]
    namespace = mock.MagicMock(**constants.CLI_DEFAULTS)
    namespace.config_dir = f"{work}/config"
    namespace.work_dir = f"{work}/work"
    namespace.logs_dir = f"{work}/logs"
    namespace.nginx_server_root = str(Path(conf).parent)
    namespace.nginx_ctl = "nginx"
    namespace.nginx_sleep_seconds = 1
    namespace.http01_port = int(http_port)
    namespace.https_port = int(https_port)
    for folder in ("config", "work", "logs"):
        Path(work, folder).mkdir(parents=True, exist_ok=True)
    plugin = configurator.NginxConfigurator(configuration.NamespaceConfig(namespace), name="nginx")
    plugin.prepare()
    key = jose.JWKRSA(key=rsa.generate_private_key(public_exponent=65537, key_size=2048))
    challenge = messages.ChallengeBody(
        chall=challenges.HTTP01(token=b"rehearsal-token-0123456789abcdef"),
        uri="https://acme.invalid/chall/1",
        status=messages.STATUS_PENDING,
    )
    annotated = achallenges.KeyAuthorizationAnnotatedChallenge(
        challb=challenge, domain=domain, account_key=key
    )
    _, validation = annotated.response_and_validation()
    plugin.perform([annotated])
    print(challenge.chall.path, validation, flush=True)
    sys.stdin.readline()
    plugin.cleanup([annotated])
    print("clean", flush=True)


if __name__ == "__main__":
    main()
