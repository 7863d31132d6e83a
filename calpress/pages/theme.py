"""The public site's templates: the package's, each overridable by a file of the same name in the
data folder's ``templates`` folder (``<data>/templates/site/layout.html`` replaces
``calpress/templates/site/layout.html``), as a WordPress theme's files replace a parent theme's.

Only the public site's templates (``site/...``) can be overridden: the workspace and the login
pages keep the package's. Overrides are read once, when the app is built (a changed override
needs a restart, as a changed setting does). A broken one must not take the site down:
``calpress serve`` refuses to start and names the file, line and fault (:func:`override_problems`);
an app built anyway (a worker started after the file broke) logs the fault and uses the
package's template of that name instead of answering 500 on every page.

docs/templates.md lists the templates and what each receives.
"""

from __future__ import annotations

import functools
import logging
from pathlib import Path

from jinja2 import (
    BaseLoader,
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    PackageLoader,
    TemplateNotFound,
    TemplateSyntaxError,
    select_autoescape,
)

__all__ = ["OVERRIDABLE", "overrides_folder", "override_problems", "site_templates", "templates_for"]

OVERRIDABLE = "site/"
FOLDER_NAME = "templates"
log = logging.getLogger(__name__)


def overrides_folder(data_dir: Path) -> Path:
    return Path(data_dir) / FOLDER_NAME


def _environment(loader: BaseLoader) -> Environment:
    # auto_reload off: the templates read at start are the ones served (see the module's docstring).
    return Environment(loader=loader, autoescape=select_autoescape(["html"]), trim_blocks=False, lstrip_blocks=False,
                       auto_reload=False)


def _override_names(folder: Path) -> list[str]:
    if not folder.is_dir():
        return []
    return sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*")
                  if path.is_file() and path.relative_to(folder).as_posix().startswith(OVERRIDABLE))


def _faults(folder: Path) -> dict[str, str]:
    """Override name -> why it cannot be used (file, line, fault), for the broken ones."""
    checker = _environment(FileSystemLoader(str(folder)))
    faults = {}
    for name in _override_names(folder):
        try:
            checker.parse((folder / name).read_text(encoding="utf-8"), name, str(folder / name))
        except TemplateSyntaxError as err:
            faults[name] = f"{folder / name}, line {err.lineno}: {err.message}"
        except (OSError, UnicodeDecodeError) as err:
            faults[name] = f"{folder / name}: {err}"
    return faults


def override_problems(data_dir: Path) -> list[str]:
    """The faults of the override templates of ``data_dir``, one sentence each (file, line, fault)."""
    return list(_faults(overrides_folder(data_dir)).values())


class _Overrides(FileSystemLoader):
    """The override folder, limited to the templates that parsed when the app was built."""

    def __init__(self, folder: Path, names: frozenset[str]) -> None:
        super().__init__(str(folder))
        self.names = names

    def get_source(self, environment: Environment, template: str) -> tuple[str, str | None, object]:
        if template not in self.names:
            raise TemplateNotFound(template)
        return super().get_source(environment, template)

    def list_templates(self) -> list[str]:
        return sorted(self.names)


def site_templates(data_dir: Path) -> Environment:
    """A Jinja environment of the package's templates with ``data_dir``'s overrides first."""
    folder = overrides_folder(data_dir)
    faults = _faults(folder)
    for problem in faults.values():
        log.error("template override not used (the package's template is): %s", problem)
    names = frozenset(name for name in _override_names(folder) if name not in faults)
    loaders: list[BaseLoader] = [PackageLoader("calpress", "templates")]
    if names:
        loaders.insert(0, _Overrides(folder, names))
    return _environment(ChoiceLoader(loaders))


@functools.lru_cache(maxsize=16)
def _cached(folder: str) -> Environment:
    return site_templates(Path(folder))


def templates_for(settings: object) -> Environment:
    """The public templates of an app's settings (its data folder's overrides), built once per
    folder: the public pages and the views route render with the same environment."""
    return _cached(str(Path(getattr(settings, "data_dir", ".")).resolve()))
