"""Walks the typed content: every module under ``agency_site/content`` and every model in it."""

import importlib
import pkgutil
from collections.abc import Iterable, Iterator
from types import ModuleType
from typing import Any

from pydantic import BaseModel

import agency_site.content
from agency_site.content.base import Link
from agency_site.locale import LOCALES, Localized


def content_modules() -> list[ModuleType]:
    """Every module of the ``agency_site.content`` package, imported."""
    package = agency_site.content
    return [
        importlib.import_module(f"{package.__name__}.{info.name}")
        for info in pkgutil.walk_packages(package.__path__)
    ]


def models_in(value: Any) -> Iterator[BaseModel]:
    """Every pydantic model instance in ``value``: itself, its fields and computed fields,
    and whatever tuples, lists, sets and dicts hold, recursively."""
    if isinstance(value, Localized):  # Every language's object.
        for language in LOCALES:
            yield from models_in(value.of(language))
    elif isinstance(value, BaseModel):
        yield value
        names = [*type(value).model_fields, *type(value).model_computed_fields]
        for name in names:
            yield from models_in(getattr(value, name))
    elif isinstance(value, dict):
        for item in value.values():
            yield from models_in(item)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from models_in(item)


def module_models(modules: Iterable[ModuleType]) -> Iterator[tuple[str, BaseModel]]:
    """(``module.NAME``, model) for every model a module's public values hold."""
    for module in modules:
        for name, value in vars(module).items():
            if name.startswith("_") or isinstance(value, type | ModuleType):
                continue
            for model in models_in(value):
                yield f"{module.__name__}.{name}", model


def links_in(modules: Iterable[ModuleType]) -> list[tuple[str, Link]]:
    """Every ``Link`` (and subclass) the modules' content holds, with where it was found."""
    return [(where, model) for where, model in module_models(modules) if isinstance(model, Link)]
