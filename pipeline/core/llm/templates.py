"""Rendering prompts from jinja2 templates, and fingerprinting the template files themselves.

The cache key includes the sha256 of the template file, so editing a template busts exactly
the answers that came from it (curator hashed the prompt function's source instead, which misses
edits to anything the function calls).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Set
from pathlib import Path
from typing import Any

import jinja2
from jinja2 import meta, nodes

from pipeline.core.model.errors import InputError

SYSTEM_TEMPLATE = "system.j2"
"""Optional template beside the others; when present it renders the system message."""

Message = dict[str, str]


class TemplateRenderer:
    """Renders `template` + `system.j2` into chat messages; undefined variables are errors.

    Templates are compiled once per process and never reloaded: a run sees one version of each
    template, which is what its cache keys say.
    """

    def __init__(self, templates_dir: Path) -> None:
        self.templates_dir = templates_dir
        self._env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(templates_dir),
            undefined=jinja2.StrictUndefined,
            autoescape=False,
            keep_trailing_newline=False,
            auto_reload=False,
        )
        self._loaded: dict[str, tuple[jinja2.Template, str]] = {}
        self._has_system = (templates_dir / SYSTEM_TEMPLATE).is_file()

    def _load(self, name: str) -> tuple[jinja2.Template, str]:
        loaded = self._loaded.get(name)
        if loaded is None:
            path = self.templates_dir / name
            try:
                source = path.read_bytes()
                template = self._env.get_template(name)
            except (OSError, jinja2.TemplateNotFound):
                known = sorted(p.name for p in self.templates_dir.glob("*.j2"))
                raise InputError(
                    f"template {name!r} not found; known templates: {', '.join(known) or 'none'}",
                    file=self.templates_dir,
                ) from None
            except jinja2.TemplateSyntaxError as err:
                raise InputError(
                    f"template syntax error at line {err.lineno}: {err.message}", file=path
                ) from None
            loaded = (template, hashlib.sha256(source).hexdigest())
            self._loaded[name] = loaded
        return loaded

    def template_sha256(self, name: str) -> str:
        """sha256 of the template file (and of system.j2 when present), for the cache key."""
        digest = self._load(name)[1]
        if self._has_system:
            digest += self._load(SYSTEM_TEMPLATE)[1]
        return digest

    def render(self, name: str, variables: dict[str, Any]) -> list[Message]:
        """System message (if system.j2 exists) then the user message rendered from `name`."""
        messages = []
        if self._has_system:
            messages.append({"role": "system", "content": self._render(SYSTEM_TEMPLATE, variables)})
        messages.append({"role": "user", "content": self._render(name, variables)})
        return messages

    def _render(self, name: str, variables: dict[str, Any]) -> str:
        template = self._load(name)[0]
        try:
            return template.render(variables)
        except jinja2.UndefinedError as err:
            raise InputError(
                f"{err.message}; the request's variables are: {', '.join(sorted(variables))}",
                file=self.templates_dir / name,
            ) from None


def check_templates(templates_dir: Path, variables: Mapping[str, Set[str]]) -> None:
    """Compile each named template and check every variable it reads is one it is given.

    `variables` maps a template file name to the names rendered into it; a top-level name
    outside them, or an attribute of a name given as `name.attr` entries (e.g. `card.total`)
    that is not among them, would fail mid-build under StrictUndefined, so it fails here,
    naming the file and line.
    """
    env = jinja2.Environment(autoescape=False)
    for name, given in sorted(variables.items()):
        path = templates_dir / name
        try:
            tree = env.parse(path.read_text(encoding="utf-8"), name=name, filename=str(path))
        except OSError as err:
            raise InputError(f"cannot read template: {err.strerror}", file=path) from None
        except UnicodeDecodeError as err:
            raise InputError(f"not valid UTF-8 at byte {err.start}", file=path) from None
        except jinja2.TemplateSyntaxError as err:
            raise InputError(
                f"template syntax error at line {err.lineno}: {err.message}", file=path
            ) from None
        top_level = {entry.split(".")[0] for entry in given}
        # Names the template assigns itself (`set`, `for`) are its own, wherever jinja's scope
        # analysis places them.
        assigned = {n.name for n in tree.find_all(nodes.Name) if n.ctx in ("store", "param")}
        for undeclared in sorted(meta.find_undeclared_variables(tree) - top_level - assigned):
            line = next(n.lineno for n in tree.find_all(nodes.Name) if n.name == undeclared)
            raise InputError(
                f"line {line} reads undefined variable {undeclared!r}; it is given: "
                f"{', '.join(sorted(top_level))}",
                file=path,
            )
        owners = _checked_owners(given)
        for node in tree.find_all(nodes.Getattr):
            owner = node.node
            read = f"{getattr(owner, 'name', '')}.{node.attr}"
            if isinstance(owner, nodes.Name) and owner.name in owners and read not in given:
                raise InputError(
                    f"line {node.lineno} reads {read}, which is not defined", file=path
                )


def _checked_owners(given: Set[str]) -> set[str]:
    """Names whose attributes are listed (`card.total`), so their attribute reads are checked."""
    return {entry.split(".")[0] for entry in given if "." in entry}
