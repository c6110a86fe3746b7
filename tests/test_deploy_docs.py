"""docs/deploy.md "Fresh Debian VPS": every command of it is run by a named test or by
``make stack``, or says why it cannot run here; and the README's Deploy section leads there.

``WALKTHROUGH`` maps each command (as written in the doc's ``bash`` blocks) to the test
that runs it. A new or changed command fails here until a test runs it.
"""

import ast
import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "deploy.md"
SECTION = "## Fresh Debian VPS"

PREPARE = "tests/test_prepare_host.py"
# Command -> the test that runs it (tests/test_prepare_host.py runs the doc's own text,
# with the system paths under a temporary folder and a throwaway user).
WALKTHROUGH = {
    "sudo apt-get install -y git python3-venv": f"{PREPARE}::test_the_packages_exist",
    "sudo git clone https://git.example.es/agency/agency_site.git /srv/agency_site/app":
        f"{PREPARE}::test_a_fresh_host_is_prepared_as_the_doc_says",
    "sudo python3 /srv/agency_site/app/scripts/prepare_host.py":
        f"{PREPARE}::test_a_fresh_host_is_prepared_as_the_doc_says",
    "sudo python3 /srv/agency_site/app/scripts/prepare_host.py --server caddy":
        f"{PREPARE}::test_caddy_gets_the_sites_go_runtime_settings_once_and_keeps_caddy",
    "sudo -u postgres createuser --pwprompt agency": f"{PREPARE}::test_the_database_and_its_user",
    "sudo -u postgres createdb --owner agency agency": f"{PREPARE}::test_the_database_and_its_user",
    "sudo ln -sf /etc/agency_site/Caddyfile /etc/caddy/Caddyfile":
        f"{PREPARE}::test_the_web_server_file_points_at_the_rendered_one",
    "sudo ln -sf /etc/agency_site/nginx-agency_site.conf /etc/nginx/sites-enabled/agency_site":
        f"{PREPARE}::test_the_web_server_file_points_at_the_rendered_one",
    # The release's steps, with the stack's reload and restart commands: `make stack-release`;
    # the systemd and export commands it runs on a server: tests/test_deploy.py.
    "cd /srv/agency_site/app && sudo .venv/bin/python -m agency_site.deploy release "
    "--units-dir /etc/systemd/system": "tests/stack/test_release.py::test_a_copywriters_change_goes_live",
    "cd /srv/agency_site/app && sudo .venv/bin/python -m agency_site.deploy release --server caddy "
    "--units-dir /etc/systemd/system": "tests/test_deploy.py::test_a_release_switches_atomically_keeps_bundles_and_rolls_back",
    "cd /srv/agency_site/app && sudo -u agency .venv/bin/python -m agency_site.deploy backup "
    "--out /var/backups/agency_site --keep 14": f"{PREPARE}::test_a_backup_by_hand",
    "cd /srv/agency_site/app && sudo git pull --ff-only": f"{PREPARE}::test_an_update",
    "sudo python3 /srv/agency_site/app/scripts/prepare_host.py --no-apt": f"{PREPARE}::test_an_update",
    "cd /srv/agency_site/app && sudo .venv/bin/python -m agency_site.deploy release":
        "tests/stack/test_release.py::test_a_copywriters_change_goes_live",
    "cd /srv/agency_site/app && sudo DEPLOY_BACKEND_HOST=10.0.0.6 .venv/bin/python -m "
    "agency_site.deploy render --out /root/host-b": f"{PREPARE}::test_the_second_hosts_unit",
    "sudo apt-get install -y nftables": f"{PREPARE}::test_the_packages_exist",
    "sudo install -D -m 0644 /dev/stdin /etc/nftables.d/agency-backends.nft <<'NFT'":
        f"{PREPARE}::test_the_firewall_rule",
    "sudo nft -c -f /etc/nftables.d/agency-backends.nft": f"{PREPARE}::test_the_firewall_rule",
}  # fmt: skip
# Commands no test runs on this machine, and why (the report of issue 23 lists them too).
NOT_RUN = {
    "sudo apt-get update": "needs the network and rewrites this machine's package lists",
    "sudo certbot certonly --nginx -d www.example.es -m hola@example.es --agree-tos "
    "--no-eff-email": "needs Let's Encrypt and the domain's DNS; the same plugin answers a "
    "challenge through the rendered site offline "
    "(tests/test_deploy.py::test_certbots_nginx_plugin_renews_through_the_rendered_site)",
    "sudo systemctl enable --now agency-backend@8001 agency-backend@8002 "
    "agency-leads-backup.timer": "no systemd here; the units pass `systemd-analyze verify` "
    "(tests/test_systemd_units.py)",
    "sudo scp /root/host-b/agency-backend@.service root@10.0.0.6:/etc/systemd/system/":
        "a second machine",
    "sudo nft -f /etc/nftables.d/agency-backends.nft": "would firewall this machine; "
    "`nft -c` checks the same file",
}  # fmt: skip


def section(text: str, heading: str) -> str:
    """The text under ``heading`` up to the next heading of the same level."""
    start = text.index(heading + "\n")
    level = heading.split(" ")[0]
    following = re.search(rf"^{level} ", text[start + len(heading) :], re.MULTILINE)
    return text[start : start + len(heading) + following.start()] if following else text[start:]


def fenced_blocks(text: str, language: str) -> list[str]:
    """The contents of the ```language blocks of ``text``."""
    return re.findall(rf"^```{language}\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)


def commands(block: str) -> list[tuple[str, str]]:
    """(first line, whole command) of each command of a bash block; a here-document's text
    belongs to the command that opens it."""
    found, lines = [], iter(block.splitlines())
    for line in lines:
        line = line.split("  #")[0].rstrip()
        if not line or line.startswith("#"):
            continue
        whole = line
        if heredoc := re.search(r"<<'(\w+)'", line):
            for body in lines:
                whole += "\n" + body
                if body == heredoc.group(1):
                    break
        found.append((line, whole))
    return found


def walkthrough() -> list[tuple[str, str]]:
    """Every command of the doc's "Fresh Debian VPS", in order."""
    text = section(DOC.read_text(encoding="utf-8"), SECTION)
    return [command for block in fenced_blocks(text, "bash") for command in commands(block)]


def command(first_line: str) -> str:
    """The whole command (with its here-document) that starts with ``first_line``."""
    return dict(walkthrough())[first_line]


def env_values() -> dict[str, str]:
    """The ``.env`` values the walk-through says to set (its ```ini block)."""
    text = section(DOC.read_text(encoding="utf-8"), SECTION)
    (block,) = fenced_blocks(text, "ini")
    return dict(line.split("=", 1) for line in block.splitlines() if line.strip())


def test_every_command_is_run_by_a_test_or_says_why_not() -> None:
    documented = [line for line, _ in walkthrough()]
    assert len(documented) == len(set(documented))
    assert set(documented) == set(WALKTHROUGH) | set(NOT_RUN), (
        "docs/deploy.md changed: map each command to the test that runs it"
    )
    assert not set(WALKTHROUGH) & set(NOT_RUN)
    assert len(NOT_RUN) <= 5


def test_each_named_test_exists() -> None:
    for test_id in set(WALKTHROUGH.values()):
        path, name = test_id.split("::")
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        names = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
        assert name in names, test_id


def test_every_deploy_command_of_the_doc_parses() -> None:
    """The doc's ``-m agency_site.deploy`` options are the command's own."""
    from agency_site.deploy.__main__ import _parser

    for line, _ in walkthrough():
        if "-m agency_site.deploy " in line:
            args = shlex.split(line.split("-m agency_site.deploy ", 1)[1])
            _parser().parse_args(args)


def test_the_steps_come_in_the_order_of_a_fresh_host() -> None:
    order = [
        "apt-get install -y git",
        "git clone",
        "prepare_host.py",
        "createuser",
        "certbot certonly --nginx",
        "ln -sf /etc/agency_site/nginx-agency_site.conf",
        "deploy release --units-dir",
        "systemctl enable",
        "deploy backup",
        "git pull",
        "deploy release",
    ]
    lines = [line for line, _ in walkthrough()]
    position = 0
    for step in order:  # Each one after the one before.
        position = next(i for i in range(position, len(lines)) if step in lines[i]) + 1
    text = section(DOC.read_text(encoding="utf-8"), SECTION)
    assert text.index("```ini") < text.index("ln -sf /etc/agency_site/nginx-agency_site.conf")


def test_the_doc_explains_the_firewall_and_the_trusted_hop() -> None:
    text = section(DOC.read_text(encoding="utf-8"), SECTION)
    assert "REFLEX_TRUSTED_PROXY_HOPS=1" in text and "DEPLOY_BACKEND_HOST=10.0.0.6" in text
    assert "ip saddr != 10.0.0.5 drop" in command(
        "sudo install -D -m 0644 /dev/stdin /etc/nftables.d/agency-backends.nft <<'NFT'"
    )


def test_the_readme_deploy_section_leads_to_the_walkthrough() -> None:
    readme = section((ROOT / "README.md").read_text(encoding="utf-8"), "## Deploy")
    assert "docs/deploy.md#fresh-debian-vps" in readme
    for step in ("prepare_host.py", "agency_site.deploy release", "firewall"):
        assert step in readme
