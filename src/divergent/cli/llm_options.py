"""The language-model options every LLM-using command shares, and the client they make.

A command declares them as parameters::

    def check(..., model: ModelOpt = None, base_url: BaseUrlOpt = None, api_key_env: ApiKeyEnvOpt = None,
              llm_config: LLMConfigOpt = None, replay: ReplayOpt = False) -> None:
        chat = chat_model_from_options(model, base_url, api_key_env, llm_config, replay)

and gets an :class:`LLMClient`, or None when no model is configured anywhere (no LLM features).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from divergent.errors import InvalidArgument
from divergent.llm.config import ENV_MODEL, resolve_llm_settings

if TYPE_CHECKING:  # the client imports the openai SDK: only when a model is asked for
    from divergent.llm.client import LLMClient
    from divergent.store import Store

__all__ = [
    "ApiKeyEnvOpt",
    "BaseUrlOpt",
    "LLMConfigOpt",
    "ModelOpt",
    "ReplayOpt",
    "chat_model_from_options",
]

_PANEL = "Language model"

ModelOpt = Annotated[
    str | None,
    typer.Option(
        "--model",
        help=f"Chat model name, e.g. gpt-4o-mini (else ${ENV_MODEL}, else the config file).",
        rich_help_panel=_PANEL,
    ),
]
BaseUrlOpt = Annotated[
    str | None,
    typer.Option(
        "--base-url",
        help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 (else $OPENAI_BASE_URL).",
        rich_help_panel=_PANEL,
    ),
]
ApiKeyEnvOpt = Annotated[
    str | None,
    typer.Option(
        "--api-key-env",
        help="NAME of the environment variable holding the API key (default OPENAI_API_KEY).",
        rich_help_panel=_PANEL,
    ),
]
LLMConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--llm-config",
        help="TOML file with an \\[llm] table (default $DIVERGENT_HOME/config.toml or ~/.config/divergent).",
        rich_help_panel=_PANEL,
    ),
]
ReplayOpt = Annotated[
    bool,
    typer.Option(
        "--replay",
        help="Offline: answer only from the response cache; a call it does not hold is an error.",
        rich_help_panel=_PANEL,
    ),
]


def chat_model_from_options(
    model: str | None,
    base_url: str | None,
    api_key_env: str | None,
    llm_config: Path | None,
    replay: bool,
    *,
    store: Store | Path | None = None,
) -> LLMClient | None:
    """The client the options ask for, or None when no model is configured anywhere.

    Raises :class:`InvalidArgument` for a malformed config file, or LLM options given without
    any model to apply them to.
    """
    settings = resolve_llm_settings(
        model=model,
        base_url=base_url,
        api_key_env=api_key_env,
        config_file=llm_config,
        replay=replay or None,
        require_model=False,
    )
    if settings is None:
        given = [
            flag
            for flag, value in (
                ("--base-url", base_url),
                ("--api-key-env", api_key_env),
                ("--replay", replay or None),
                ("--llm-config", llm_config),
            )
            if value is not None
        ]
        if given:
            raise InvalidArgument(
                f"{', '.join(given)} given but no model: pass --model (or set {ENV_MODEL} or model in the "
                "[llm] table of the config file)"
            )
        return None
    from divergent.llm.client import LLMClient

    return LLMClient(settings, store=store)
