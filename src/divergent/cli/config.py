"""Project defaults in ``pyproject.toml``: a ``[tool.divergent]`` table, as pytest, ruff and mypy keep
theirs, holds the settings a project repeats on every command line (the budget, the jobs, the
sandbox, how outputs compare)::

    [tool.divergent]
    budget = 60
    timeout = 5
    isolation = "bubblewrap"
    output = "float"
    rel-tol = 1e-6

    [tool.divergent.check]      # only for `divergent check` (a table per top-level command)
    budget = 10

The file is found by walking up from the current directory to the first ``pyproject.toml`` that
has the table. A flag on the command line wins over the file, which wins over divergent's default;
``--json`` says where each setting came from (``default``, the file's path, ``flag``) and
``--verbose`` prints it. A key is the flag's long name without the dashes (``rel-tol``; ``rel_tol``
is read the same); only the settings below may be set (the model's are in ``config.toml``'s
``[llm]`` table, docs/llm.md; outputs and inputs are the command line's). A key or value the file
may not hold is an input error naming the file and the key, before any work.

The settings become the command's defaults (click's ``default_map``), so a value is checked and
converted exactly as the same flag would be."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from divergent.errors import InvalidArgument

__all__ = [
    "SETTINGS",
    "ProjectConfig",
    "command_defaults",
    "config_key_of",
    "configured_in",
    "find_config",
    "forget_command",
    "is_config_file",
    "origin_of",
    "parameter_origin",
    "remember_command",
    "settings_origins",
]

#: what ``[tool.divergent]`` may set, by key (the flag's long name), grouped as ``--help`` shows them
SETTINGS: tuple[str, ...] = (
    # the search
    "budget", "executions", "seed", "engines", "shrink",
    # how outcomes compare
    "timeouts", "rel-tol", "abs-tol",
    # limits and sandbox
    "timeout", "memory", "isolation",
    # Python functions
    "exceptions", "nan-equal", "unordered", "compare-mutation", "compare-stdout", "iterable-limit",
    "list-equals-tuple",
    # whole programs and commands
    "stdin", "output", "cflags", "cxxflags", "javacflags", "build-cache", "fresh-interpreter", "min-inputs",
    # where long runs work, and the store
    "jobs", "executor", "address", "db",
)  # fmt: skip
#: settings that name a path: one relative to the file is relative to its directory
PATH_SETTINGS = frozenset({"build-cache", "db"})
#: the tables of ``[tool.divergent]`` that hold one top-level command's own settings
COMMAND_TABLES = ("check", "cluster", "incoherence", "bench", "report")
TABLE = "tool.divergent"


@dataclass(frozen=True)
class ProjectConfig:
    """The ``[tool.divergent]`` table of one ``pyproject.toml``."""

    path: Path
    table: Mapping[str, Any]

    def settings_for(self, command_path: str) -> dict[str, tuple[Any, str]]:
        """The settings for the command ``divergent check`` (its path): key → (value, where it is
        written, ``[tool.divergent] budget``), a command's own table over the shared ones."""
        found: dict[str, tuple[Any, str]] = {}
        words = command_path.split()[1:2]
        scopes: list[tuple[Mapping[str, Any], str]] = [(self.table, TABLE)]
        for word in words:
            own = self.table.get(word)
            if isinstance(own, Mapping):
                scopes.append((own, f"{TABLE}.{word}"))
        for scope, name in scopes:
            for key, value in scope.items():
                if isinstance(value, Mapping):
                    continue
                found[key.replace("_", "-")] = (self._resolved(key, value), f"[{name}] {key}")
        return found

    def _resolved(self, key: str, value: Any) -> Any:
        if key.replace("_", "-") in PATH_SETTINGS and isinstance(value, str):
            return str((self.path.parent / Path(value).expanduser()).resolve())
        return value

    def check_keys(self) -> None:
        """An input error for a key or table the file may not hold (before any command reads it)."""
        for key, value in self.table.items():
            if isinstance(value, Mapping):
                if key not in COMMAND_TABLES:
                    raise InvalidArgument(f"{self.path}: [{TABLE}.{key}]: no such command; tables: "
                                          f"{', '.join(COMMAND_TABLES)}")
                for inner, item in value.items():
                    if isinstance(item, Mapping):
                        raise InvalidArgument(f"{self.path}: [{TABLE}.{key}.{inner}]: tables go one level deep")
                    self._check_key(inner, f"{TABLE}.{key}")
            else:
                self._check_key(key, TABLE)

    def _check_key(self, key: str, scope: str) -> None:
        if key.replace("_", "-") not in SETTINGS:
            raise InvalidArgument(
                f"{self.path}: [{scope}] {key}: not a setting divergent reads from pyproject.toml (it reads "
                f"{', '.join(SETTINGS)}; the model's settings go in config.toml's [llm] table, docs/llm.md)")


def find_config(start: Path | None = None) -> ProjectConfig | None:
    """The ``[tool.divergent]`` table of the nearest ``pyproject.toml`` that has one, walking up
    from ``start`` (the current directory); None when there is none. A file that is not TOML is
    an input error (it has the table's name in it, so it was meant for divergent)."""
    import tomllib

    directory = (start or Path.cwd()).resolve()
    for folder in (directory, *directory.parents):
        candidate = folder / "pyproject.toml"
        try:
            text = candidate.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if "tool.divergent" not in text and "[tool]" not in text:
            continue  # (cheap: most files never name it, and TOML is not parsed for them)
        try:
            document = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise InvalidArgument(f"{candidate}: not valid TOML: {error}") from None
        table = document.get("tool", {}).get("divergent")
        if table is None:
            continue
        if not isinstance(table, dict):
            raise InvalidArgument(f"{candidate}: [{TABLE}] must be a table")
        config = ProjectConfig(candidate, table)
        config.check_keys()
        return config
    return None


def command_defaults(command: Any, ctx: Any) -> dict[str, Any]:
    """The defaults ``[tool.divergent]`` gives the command about to parse its arguments (parameter
    name → value, checked and converted as its flag's value would be), remembered on ``ctx`` for
    :func:`origin_of`. An input error names the file and the key."""
    if os.environ.get("DIVERGENT_NO_CONFIG"):
        return {}
    config = find_config()
    if config is None:
        return {}
    by_name = {}
    for param in command.get_params(ctx):
        if param.param_type_name != "option":
            continue
        for name in (*param.opts, *param.secondary_opts):
            if name.startswith("--"):
                by_name[name[2:]] = (param, name in param.secondary_opts)
    defaults: dict[str, Any] = {}
    where: dict[str, tuple[str, str]] = {}
    for key, (value, written) in config.settings_for(ctx.command_path).items():
        if key not in by_name:
            continue  # a setting of other commands (``jobs`` means nothing to ``check``)
        param, negated = by_name[key]
        defaults[param.name] = _converted(param, ctx, value, negated, f"{config.path}: {written}")
        where[param.name] = (str(config.path), written)
    ctx.meta["divergent.config"] = where
    return defaults


def _converted(param: Any, ctx: Any, value: Any, negated: bool, written: str) -> Any:
    from divergent.cli.usage import UsageError, usage_error_text

    flag = getattr(param, "is_flag", False) and not getattr(param, "count", False)
    if flag != isinstance(value, bool):
        wanted = "true or false" if flag else "a value, not true or false"
        raise InvalidArgument(f"{written} = {value!r}: expected {wanted}")
    if flag:
        return not value if negated else value
    if getattr(param, "multiple", False) and isinstance(value, str | int | float):
        value = [value]
    try:
        param.type_cast_value(ctx, value)
    except UsageError as error:
        reason = usage_error_text(error, ctx)[0]
        raise InvalidArgument(f"{written} = {value!r}: {reason.split(' ', 1)[1] if ' ' in reason else reason}") from None
    return value


def origin_of(ctx: Any, name: str) -> str:
    """Where parameter ``name``'s value came from: ``flag``, ``environment``, the config file's
    path or ``default``."""
    source = ctx.get_parameter_source(name)
    kind = getattr(source, "name", "")
    if kind == "COMMANDLINE":
        return "flag"
    if kind == "ENVIRONMENT":
        return "environment"
    if kind == "DEFAULT_MAP":
        return ctx.meta.get("divergent.config", {}).get(name, ("pyproject.toml", ""))[0]
    return "default"


def config_key_of(ctx: Any, name: str) -> str | None:
    """The key of the config file that set parameter ``name`` (``[tool.divergent] budget``), if one did."""
    if getattr(ctx.get_parameter_source(name), "name", "") != "DEFAULT_MAP":
        return None
    return ctx.meta.get("divergent.config", {}).get(name, ("", None))[1]


# -- where the running command's settings came from ----------------------------------------------

#: the context of the command running now (:func:`remember_command`)
_RUNNING: dict[str, Any] = {}


def remember_command(ctx: Any) -> None:
    _RUNNING["ctx"] = ctx


def forget_command() -> None:
    _RUNNING.clear()


def parameter_origin(name: str) -> str:
    """Where the running command's parameter ``name`` got its value (:func:`origin_of`); ``flag``
    outside a command (a group built by hand)."""
    ctx = _RUNNING.get("ctx")
    if ctx is None or name not in ctx.params:
        return "flag"
    return origin_of(ctx, name)


def is_config_file(origin: str) -> bool:
    """Whether a setting's origin (:func:`parameter_origin`) is a config file."""
    return origin not in ("flag", "environment", "default")


def settings_origins() -> dict[str, dict[str, Any]]:
    """Each option of the running command (by its long name), its value and where it came from
    (``from``, and ``key`` when a config file set it): for ``--json`` documents and ``--verbose``."""
    ctx = _RUNNING.get("ctx")
    if ctx is None:
        return {}
    found = {}
    for param in ctx.command.get_params(ctx):
        if param.param_type_name != "option" or getattr(param, "hidden", False) or param.name not in ctx.params:
            continue
        if param.name in ("help", "json_on_stdout", "as_json", "json_file"):
            continue
        names = [n for n in param.opts if n.startswith("--")] or list(param.opts)
        value = ctx.params[param.name]
        if isinstance(value, tuple | list):
            shown: Any = [item if isinstance(item, str | int | float | bool) else str(item) for item in value]
        else:
            shown = value if value is None or isinstance(value, str | int | float | bool) else str(value)
        setting = {"value": shown, "from": origin_of(ctx, param.name)}
        key = config_key_of(ctx, param.name)
        if key:
            setting["key"] = key
        found[names[0].lstrip("-")] = setting
    return found


def configured_in(reason: str) -> list[str]:
    """For an error about a setting the project's config file gave (not a flag): where it is set."""
    ctx = _RUNNING.get("ctx")
    if ctx is None:
        return []
    said = []
    for param in ctx.command.get_params(ctx):
        key = config_key_of(ctx, param.name) if param.name in ctx.params else None
        long = next((name for name in param.opts if name.startswith("--")), "")
        if key and long and re.search(rf"(?<![\w-])(--)?{re.escape(long[2:])}(?![\w-])", reason):
            said.append(f"{long} was set by {origin_of(ctx, param.name)}: {key} = {ctx.params[param.name]!r}")
    return said
