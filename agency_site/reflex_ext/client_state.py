"""Browser-only state: ClientStateVar's slots in Reflex's ``refs``, Vars that carry React hooks.

Reflex 0.10.1 keeps a global ClientStateVar's value and setter in the ``refs`` object
of ``$/utils/state`` under ``_client_state_<name>`` (``reflex/experimental/client_state.py``);
hook code written with ``hook_var`` reads and sets them from plain JavaScript.
"""

from collections.abc import Iterable, Mapping

import reflex as rx

from agency_site.reflex_ext.internals import ClientStateVar, ImportVar, VarData

__all__ = ["ClientStateVar", "browser_event", "hook_var", "refs_keys"]

# Where Reflex's global ``refs`` object is imported from in the compiled pages.
_REFS = {"$/utils/state": ["refs"]}


def refs_keys(var: ClientStateVar) -> tuple[str, str]:
    """Keys of ``refs`` holding the value and the setter of a global client state var."""
    return f"_client_state_{var._getter_name}", f"_client_state_{var._setter_name}"


def _imports(libraries: Mapping[str, Iterable[str]]) -> dict[str, list[ImportVar]]:
    return {library: [ImportVar(tag=tag) for tag in tags] for library, tags in libraries.items()}


def hook_var(
    expression: str,
    hooks: Iterable[str] = (),
    imports: Mapping[str, Iterable[str]] | None = None,
    *,
    refs: bool = False,
) -> rx.Var:
    """The JavaScript ``expression``, whose component first runs ``hooks`` (React hook code).

    ``imports`` maps a library to the names the hooks use (``{"react": ["useEffect"]}``);
    ``refs`` adds Reflex's ``refs`` object (``refs_keys``).
    """
    libraries = {library: list(tags) for library, tags in (imports or {}).items()}
    for library, tags in (_REFS if refs else {}).items():
        libraries[library] = [*libraries.get(library, []), *tags]
    return rx.Var(
        expression,
        _var_data=VarData(hooks=dict.fromkeys(hooks), imports=_imports(libraries)),
    )


def browser_event(function: str) -> rx.Var:
    """An event handler that runs the JavaScript ``function`` in the browser (it may use refs)."""
    return hook_var(function, refs=True).to(rx.vars.FunctionVar, rx.EventChain)
