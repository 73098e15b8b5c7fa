"""Which model, which endpoint, which key: resolved from flags, then environment, then a config file.

Precedence, highest first:

1. arguments (the CLI's ``--model``, ``--base-url``, ``--api-key-env``, ``--replay``);
2. environment: ``DIVERGENT_LLM_MODEL``, ``OPENAI_BASE_URL``, ``DIVERGENT_LLM_REPLAY=1``;
3. the ``[llm]`` table of a TOML file: the path given, else ``$DIVERGENT_HOME/config.toml`` when
   ``DIVERGENT_HOME`` is set, else ``$XDG_CONFIG_HOME/divergent/config.toml`` (``~/.config/...``);
4. the defaults of :class:`LLMSettings`.

The settings hold the *name* of the environment variable with the key, never the key: the
client reads the variable when it first calls the endpoint.

::

    [llm]
    model = "gpt-4o-mini"
    base_url = "https://api.openai.com/v1"
    api_key_env = "OPENAI_API_KEY"
    timeout = 120          # seconds per request
    max_retries = 5
    concurrency = 4        # requests in flight at once, per client

    [llm.prices."my-local-model"]
    input = 0.0            # USD per million prompt tokens
    output = 0.0
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from divergent import paths
from divergent.errors import InvalidArgument
from divergent.llm.costs import Price

__all__ = ["LLMSettings", "default_config_path", "resolve_llm_settings"]

ENV_MODEL = "DIVERGENT_LLM_MODEL"
ENV_BASE_URL = "OPENAI_BASE_URL"
ENV_REPLAY = "DIVERGENT_LLM_REPLAY"
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
_FALSE_WORDS = frozenset({"", "0", "false", "no", "off"})


@dataclass(frozen=True)
class LLMSettings:
    """Everything the client needs except the key itself."""

    model: str
    #: None: the SDK's default (https://api.openai.com/v1)
    base_url: str | None = None
    #: the name of the environment variable that holds the API key
    api_key_env: str = DEFAULT_API_KEY_ENV
    #: seconds per request, wall clock (however the answer trickles in), before it counts as a
    #: timeout (and is retried); a caller's deadline may cut it shorter
    timeout: float = 120.0
    #: retries after the first attempt, on 429, 5xx, timeouts, connection errors, malformed answers
    max_retries: int = 5
    #: requests in flight at once through one client
    concurrency: int = 4
    #: per-model price overrides (USD per million tokens), on top of the default table
    prices: Mapping[str, Price] = field(default_factory=dict, compare=False)
    #: offline: answer only from the response cache; a miss is an error
    replay: bool = False
    #: read and write the persistent response cache
    cache: bool = True
    #: first backoff in seconds; it doubles per retry (with jitter) up to ``backoff_max``
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    #: a server's Retry-After is honoured up to this many seconds
    retry_after_max: float = 60.0

    def __post_init__(self) -> None:
        if not isinstance(self.model, str) or not self.model.strip():
            raise InvalidArgument("the model name must be a non-empty string")
        if self.base_url is not None:
            _check_base_url(self.base_url)
        if not _ENV_NAME.fullmatch(self.api_key_env):
            # the value may be a pasted key: never echo it
            raise InvalidArgument(
                "the API key setting takes the NAME of an environment variable (like OPENAI_API_KEY), "
                "not the key itself"
            )
        for name in ("timeout", "backoff_max", "retry_after_max"):
            if not 0 < getattr(self, name) < math.inf:
                raise InvalidArgument(f"{name}={getattr(self, name)!r} must be a number of seconds > 0")
        if not 0 <= self.backoff_base < math.inf:
            raise InvalidArgument(f"backoff_base={self.backoff_base!r} must be a number of seconds >= 0")
        if self.max_retries < 0:
            raise InvalidArgument(f"max_retries={self.max_retries!r} must be >= 0")
        if self.concurrency < 1:
            raise InvalidArgument(f"concurrency={self.concurrency!r} must be >= 1")
        if self.replay and not self.cache:
            raise InvalidArgument("replay mode answers from the response cache: it cannot run with the cache off")

    @property
    def endpoint(self) -> str:
        """The base URL as users know it (for messages)."""
        return self.base_url or "https://api.openai.com/v1"


def _check_base_url(url: str) -> None:
    """An http(s) URL with a host (and a port, if any, that is a number): the one place the prompts go."""
    if not re.match(r"https?://", url):
        raise InvalidArgument(f"base URL {url!r} must start with http:// or https://")
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises for a port that is not a number
    except ValueError as error:
        raise InvalidArgument(f"base URL {url!r} is not a URL: {error}") from None
    if not parts.hostname:
        raise InvalidArgument(f"base URL {url!r} names no host")


# Keys of the [llm] table and the types they take (prices is a table of its own).
_FILE_KEYS: dict[str, type | tuple[type, ...]] = {
    "model": str,
    "base_url": str,
    "api_key_env": str,
    "timeout": (int, float),
    "max_retries": int,
    "concurrency": int,
    "replay": bool,
    "cache": bool,
    "backoff_base": (int, float),
    "backoff_max": (int, float),
    "retry_after_max": (int, float),
}
assert set(_FILE_KEYS) | {"prices"} == {f.name for f in fields(LLMSettings)}


def default_config_path(environ: Mapping[str, str] | None = None) -> Path:
    """``$DIVERGENT_HOME/config.toml``, else ``$XDG_CONFIG_HOME/divergent/config.toml`` (or ~/.config)."""
    return paths.config_dir(environ) / "config.toml"


def _read_config_file(path: Path, *, required: bool) -> dict[str, Any]:
    """The validated ``[llm]`` table of a config file ({} when the default file does not exist)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if required:
            raise InvalidArgument(f"{path}: LLM config file not found") from None
        return {}
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidArgument(f"{path}: cannot read the LLM config file: {error}") from None
    import tomllib  # only when there is a file to read: most runs have none, and the parser costs 10 ms

    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise InvalidArgument(f"{path}: not valid TOML: {error}") from None
    table = document.get("llm", {})
    if not isinstance(table, dict):
        raise InvalidArgument(f"{path}: 'llm' must be a table ([llm])")
    settings: dict[str, Any] = {}
    for key, value in table.items():
        if key == "prices":
            settings["prices"] = _read_prices(path, value)
            continue
        expected = _FILE_KEYS.get(key)
        if expected is None:
            known = ", ".join(sorted([*_FILE_KEYS, "prices"]))
            raise InvalidArgument(f"{path}: unknown key {key!r} in [llm] (known keys: {known})")
        # bool is an int in Python: a "max_retries = true" is a mistake, not 1
        if not isinstance(value, expected) or (isinstance(value, bool) and expected is not bool):
            names = expected.__name__ if isinstance(expected, type) else "number"
            raise InvalidArgument(f"{path}: [llm] {key} must be a {names}, got {value!r}")
        settings[key] = float(value) if expected == (int, float) else value
    return settings


def _read_prices(path: Path, table: object) -> dict[str, Price]:
    if not isinstance(table, dict):
        raise InvalidArgument(f'{path}: [llm.prices] must hold tables like [llm.prices."model-name"]')
    prices = {}
    for model, entry in table.items():
        if not isinstance(entry, dict) or set(entry) != {"input", "output"}:
            raise InvalidArgument(
                f'{path}: [llm.prices."{model}"] must have exactly the keys input and output '
                "(USD per million tokens)"
            )
        try:
            prices[model] = Price(input=entry["input"], output=entry["output"])
        except InvalidArgument as error:
            raise InvalidArgument(f'{path}: [llm.prices."{model}"]: {error}') from None
    return prices


def _env_flag(environ: Mapping[str, str], name: str) -> bool | None:
    raw = environ.get(name)
    if raw is None:
        return None
    word = raw.strip().lower()
    if word in _TRUE_WORDS:
        return True
    if word in _FALSE_WORDS:
        return False
    raise InvalidArgument(f"{name}={raw!r}: use 1 or 0")


def resolve_llm_settings(
    model: str | None = None,
    base_url: str | None = None,
    api_key_env: str | None = None,
    config_file: Path | str | None = None,
    replay: bool | None = None,
    *,
    timeout: float | None = None,
    max_retries: int | None = None,
    concurrency: int | None = None,
    cache: bool | None = None,
    environ: Mapping[str, str] | None = None,
    require_model: bool = True,
) -> LLMSettings | None:
    """Merge flags, environment and config file into settings.

    Raises :class:`InvalidArgument` for a malformed config file or value, and — when
    ``require_model`` — when no model is configured anywhere; without ``require_model`` that case
    returns None (no LLM features).
    """
    environ = os.environ if environ is None else environ
    path = Path(config_file).expanduser() if config_file is not None else default_config_path(environ)
    merged = _read_config_file(path, required=config_file is not None)
    from_environment = {
        "model": environ.get(ENV_MODEL) or None,
        "base_url": environ.get(ENV_BASE_URL) or None,
        "replay": _env_flag(environ, ENV_REPLAY),
    }
    from_arguments = {
        "model": model,
        "base_url": base_url,
        "api_key_env": api_key_env,
        "replay": replay,
        "timeout": timeout,
        "max_retries": max_retries,
        "concurrency": concurrency,
        "cache": cache,
    }
    for layer in (from_environment, from_arguments):
        merged.update({key: value for key, value in layer.items() if value is not None})
    if not merged.get("model"):
        if not require_model:
            return None
        raise InvalidArgument(
            f"no language model configured: pass --model, set {ENV_MODEL}, or set model in the [llm] "
            f"table of {path}"
        )
    return LLMSettings(**merged)
