"""The language-model options every LLM-using command shares, as one option group
(:class:`ModelAccess`, :mod:`divergent.cli.option_groups`), the client they make, and the searching
commands' group (:class:`ModelGroup`: model access and the search's model settings).

A command takes the group as a parameter::

    @with_option_groups
    def sample(pairs: ..., model: ModelAccess) -> None:
        chat = model.client()

and gets an :class:`LLMClient`, or None when no model is configured anywhere (no LLM features).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from divergent.cli.option_groups import OptionGroup
from divergent.engines.settings import ProbeGenSettings
from divergent.errors import InvalidArgument
from divergent.llm.config import ENV_MODEL, resolve_llm_settings

if TYPE_CHECKING:  # the client (and the store) only when a model is asked for; the SDK only for a request
    from divergent.llm.client import LLMClient
    from divergent.store import Store

__all__ = [
    "ApiKeyEnvOpt",
    "BaseUrlOpt",
    "LLMConfigOpt",
    "ModelAccess",
    "ModelGroup",
    "ModelOpt",
    "ReplayOpt",
    "chat_model_from_options",
]

_PANEL = "Language model"
_PROBEGEN = ProbeGenSettings()

ModelOpt = Annotated[
    str | None,
    typer.Option(
        "--model",
        metavar="MODEL",
        help=f"Chat model name, e.g. gpt-4o-mini (else ${ENV_MODEL}, else the config file).",
        rich_help_panel=_PANEL,
    ),
]
BaseUrlOpt = Annotated[
    str | None,
    typer.Option(
        "--base-url",
        metavar="URL",
        help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 (else $OPENAI_BASE_URL).",
        rich_help_panel=_PANEL,
    ),
]
ApiKeyEnvOpt = Annotated[
    str | None,
    typer.Option(
        "--api-key-env",
        metavar="NAME",
        help="NAME of the environment variable holding the API key (default OPENAI_API_KEY).",
        rich_help_panel=_PANEL,
    ),
]
LLMConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--llm-config",
        metavar="FILE",
        help="TOML file with an \\[llm] table (default $DIVERGENT_HOME/config.toml or ~/.config/divergent).",
        rich_help_panel=_PANEL,
    ),
]
ReplayOpt = Annotated[
    bool,
    typer.Option(
        "--replay",
        help="Offline: answer only from the response cache; a call it does not hold stops the model's part (a note says which; the other engines' results stand).",
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


@dataclass(frozen=True)
class ModelAccess(OptionGroup):
    """The model options every LLM-using command shares (above): which model, where, with which key
    and config file, or only from the response cache."""

    panel = _PANEL

    model: ModelOpt = None
    base_url: BaseUrlOpt = None
    api_key_env: ApiKeyEnvOpt = None
    llm_config: LLMConfigOpt = None
    replay: ReplayOpt = False

    def client(self, *, store: Store | Path | None = None, model: str | None = None) -> LLMClient | None:
        """The client these options ask for (``model``: another model at the same endpoint), or None
        when no model is configured anywhere (:func:`chat_model_from_options`)."""
        return chat_model_from_options(model or self.model, self.base_url, self.api_key_env, self.llm_config,
                                       self.replay, store=store)

    def flags_given(self) -> list[str]:
        """The flags of this group given on the command line, as the user wrote them."""
        return [flag for flag, value in (("--model", self.model), ("--base-url", self.base_url),
                                         ("--api-key-env", self.api_key_env), ("--llm-config", self.llm_config),
                                         ("--replay", self.replay or None)) if value is not None]

    def refuse(self, why: str) -> None:
        """An input error when any of these flags was given where no model is used (``why``: what
        uses none)."""
        given = self.flags_given()
        if given:
            raise InvalidArgument(f"{why} uses no model: drop {', '.join(given)}")


@dataclass(frozen=True)
class ModelGroup(ModelAccess):
    """The searching commands' model options: model access (:class:`ModelAccess`), the task
    description, the spurious-counterexample filter and ProbeGen's tree. It builds the engines'
    settings at once (a bad strategy is an input error before anything starts) and opens the client
    last (:meth:`connect`), once the programs are loaded."""

    spec: Annotated[Path | None, typer.Option(
        "--spec", metavar="FILE", help="Task description (text or markdown) for the LLM engine and the filter.")] = None
    no_filter: Annotated[bool, typer.Option(
        "--no-filter", help="Count every difference: no LLM spurious-counterexample filter.")] = False
    probegen_strategy: Annotated[str, typer.Option(
        "--probegen-strategy", metavar="NAME",
        help="ProbeGen's tree: full, top, decreasing, increasing, halving, doubling.")] = _PROBEGEN.strategy.value
    k: Annotated[int, typer.Option(
        "-K", min=1, metavar="N", help="ProbeGen: samples at the first turn (the strategy's K).")] = _PROBEGEN.k
    d: Annotated[int, typer.Option("-D", min=1, metavar="N", help="ProbeGen: turns of feedback (the tree's depth D).")] = _PROBEGEN.d

    def apply(self, options: Any, flags: Any) -> Any:
        from divergent.engines.settings import EngineSettings

        settings = EngineSettings(probegen=ProbeGenSettings(strategy=self.probegen_strategy, k=self.k, d=self.d))
        spec = None
        if self.spec is not None:
            try:
                spec = self.spec.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as error:
                raise InvalidArgument(f"--spec {self.spec}: cannot read it ({error})") from None
        return options.with_(engine_settings=settings, spec=spec)

    def connect(self, options: Any) -> Any:
        """``options`` with an open model client (the caller closes ``options.llm`` when done) and the
        spurious filter (unless ``--no-filter``); as they are when no model is configured."""
        chat = self.client()
        if chat is None:
            return options
        spurious_filter = None
        if not self.no_filter:
            from divergent.spurious import SpuriousFilter

            spurious_filter = SpuriousFilter(chat, spec=options.spec)
        return options.with_(llm=chat, spurious_filter=spurious_filter)
