"""EquiBench's judge prompts: ours (template files), or the authors' ``prompts.yaml`` loaded as data.

Ours are written from the paper's description of each category (``bench/equibench/templates/*.txt``):
the frame ``equibench_task`` holds the category's language and its definition of equivalence
(``equibench_definition_<dce|cuda|x86|oj>``), the problem statement for the OJ categories, four
worked examples for the few-shot styles (``equibench_examples_<category>``: two equivalent pairs,
two not, each with a short rationale shown by the chain-of-thought style), the two programs, and
the instruction (``equibench_instruction_direct``: one word; ``_cot``: reason, then a last line
"The answer is YES."). Four styles, as in the paper's Table 3: ``zero-shot``, ``few-shot``,
``cot`` (zero-shot chain of thought) and ``few-shot-cot``.

``--prompts FILE`` loads the authors' YAML instead (for an exact reproduction): per config name
(``DCE``, ``TVM``, ``STOKE``, ``OJ_A``, ``OJ_V``, ``OJ_VA``) the keys ``ZERO``, ``FEW``,
``ZERO_COT``, ``FEW_COT``, in Python's ``str.format`` syntax with the placeholders
``program_1_code``, ``program_2_code``, ``true_label``, ``false_label``, ``def_in``, ``live_out``,
``problem_html``. They are filled by a restricted formatter that accepts those names only (no
attribute or index lookups), so a file can hold nothing but text. PyYAML reads it
(``pip install 'divergent[bench]'``).
"""

from __future__ import annotations

import functools
import hashlib
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from divergent.bench.answers import TEMPLATES as BENCH_TEMPLATES
from divergent.bench.answers import AnswerFormat
from divergent.bench.equibench.data import Category, Pair
from divergent.bench.equibench.statement import statement_text
from divergent.errors import InvalidArgument, LoadError, MissingExtra
from divergent.llm.chat import Message
from divergent.llm.prompts import Templates

#: divergent's own EquiBench prompts
TEMPLATES = Templates("divergent.bench.equibench")

__all__ = ["TEMPLATES", "EquiBenchAuthorsPrompts", "PromptStyle", "WorkedExample", "build_messages", "load_authors_prompts", "worked_examples"]


class PromptStyle(StrEnum):
    ZERO_SHOT = "zero-shot"
    FEW_SHOT = "few-shot"
    COT = "cot"
    FEW_SHOT_COT = "few-shot-cot"

    @property
    def few_shot(self) -> bool:
        return self in (PromptStyle.FEW_SHOT, PromptStyle.FEW_SHOT_COT)

    @property
    def chain_of_thought(self) -> bool:
        return self in (PromptStyle.COT, PromptStyle.FEW_SHOT_COT)

    @property
    def authors_key(self) -> str:
        return {"zero-shot": "ZERO", "few-shot": "FEW", "cot": "ZERO_COT", "few-shot-cot": "FEW_COT"}[self.value]

    @classmethod
    def parse(cls, text: str) -> PromptStyle:
        try:
            return cls(text.strip().lower())
        except ValueError:
            choices = ", ".join(s.value for s in cls)
            raise InvalidArgument(f"--prompt {text!r}: choose one of {choices}") from None


_DEFINITION = {
    Category.DCE: "dce", Category.CUDA: "cuda", Category.X86_64: "x86",
    Category.OJ_A: "oj", Category.OJ_V: "oj", Category.OJ_VA: "oj",
}
_EXAMPLES = {
    Category.DCE: "dce", Category.CUDA: "cuda", Category.X86_64: "x86",
    Category.OJ_A: "oj_a", Category.OJ_V: "oj_v", Category.OJ_VA: "oj_va",
}
_FENCE = {Category.DCE: "c", Category.CUDA: "cuda", Category.X86_64: "asm"}


@dataclass(frozen=True)
class WorkedExample:
    program_1: str
    program_2: str
    reasoning: str
    equivalent: bool
    problem: str = ""
    def_in: str = ""
    live_out: str = ""


def _parse_examples(text: str, name: str) -> tuple[WorkedExample, ...]:
    """The examples file (a template without placeholders: ``$$`` for a dollar sign) as
    ``## example`` blocks of ``### section`` parts (program 1, program 2, reasoning, answer;
    optional problem and registers); lines starting with ``#`` before the first block are comments."""
    examples = []
    for block in text.split("\n## example\n")[1:]:
        sections: dict[str, list[str]] = {}
        current: list[str] | None = None
        for line in block.splitlines():
            if line.startswith("### "):
                current = sections.setdefault(line[4:].strip(), [])
            elif current is not None:
                current.append(line)
        parts = {key: "\n".join(lines).strip("\n") for key, lines in sections.items()}
        missing = {"program 1", "program 2", "reasoning", "answer"} - set(parts)
        if missing:
            raise LoadError(f"prompt examples {name}: an example lacks {', '.join(sorted(missing))}")
        registers = dict(item.split("=", 1) for item in parts.get("registers", "").split() if "=" in item)
        examples.append(WorkedExample(
            program_1=parts["program 1"], program_2=parts["program 2"], reasoning=parts["reasoning"].strip(),
            equivalent=parts["answer"].strip().upper() == "YES", problem=parts.get("problem", "").strip(),
            def_in=registers.get("def_in", ""), live_out=registers.get("live_out", ""),
        ))
    return tuple(examples)


@functools.cache
def worked_examples(category: Category) -> tuple[WorkedExample, ...]:
    """The four worked examples of a category (``bench/equibench/templates/examples_<category>.txt``)."""
    name = f"examples_{_EXAMPLES[category]}"
    # a template like the others (no placeholders; $$ is the dollar of AT&T immediates)
    return _parse_examples(TEMPLATES.render(name), name)


def _fenced(code: str, category: Category) -> str:
    language = _FENCE.get(category, "python")
    return f"```{language}\n{code.strip(chr(10))}\n```"


def _definition(category: Category, def_in: str, live_out: str) -> str:
    return TEMPLATES.render(f"definition_{_DEFINITION[category]}", def_in=def_in, live_out=live_out).strip()


def _answer_text(example: WorkedExample, style: PromptStyle) -> str:
    verdict = "YES" if example.equivalent else "NO"
    if style.chain_of_thought:
        return f"Answer: {example.reasoning}\nThe answer is {verdict}."
    return f"Answer: {verdict}"


def _examples_text(category: Category, style: PromptStyle) -> str:
    rendered = []
    for number, example in enumerate(worked_examples(category), start=1):
        problem_line = ""
        if example.problem:
            problem_line = f"Problem: {example.problem}\n"
        elif example.live_out:
            problem_line = f"Input register(s): {example.def_in}; output register(s): {example.live_out}.\n"
        rendered.append(TEMPLATES.render(
            "example", number=number, problem_line=problem_line,
            program_1=_fenced(example.program_1, category), program_2=_fenced(example.program_2, category),
            answer=_answer_text(example, style),
        ).strip())
    return "\nWorked examples:\n\n" + "\n\n".join(rendered) + "\n\nNow the pair to judge.\n"


def _registers(registers: tuple[str, ...]) -> str:
    return ", ".join(registers) if registers else "(none given)"


def our_prompt(pair: Pair, style: PromptStyle) -> str:
    """The prompt our templates make for ``pair`` in ``style``."""
    category = pair.category
    problem = ""
    if category.online_judge:
        problem = TEMPLATES.render("problem", statement=statement_text(pair.problem_html) or "(no statement given)")
    return TEMPLATES.render(
        "task",
        language=category.language,
        definition=_definition(category, _registers(pair.def_in), _registers(pair.live_out)),
        problem=problem,
        examples=_examples_text(category, style) if style.few_shot else "",
        program_1=_fenced(pair.program_1, category),
        program_2=_fenced(pair.program_2, category),
        instruction=TEMPLATES.render(f"instruction_{'cot' if style.chain_of_thought else 'direct'}").strip(),
    )


@functools.cache
def _our_templates_digest() -> str:
    """A digest of our EquiBench templates: a stored run made with other wording is another run.

    Each file counts under the name it had when the templates lived together in ``llm/prompts/``
    (``equibench_<name>.txt``, ``bench_extract_answer.txt``), so runs stored then still resume."""
    files = [(f"equibench_{name}.txt", data) for name, data in TEMPLATES.files()]
    files += [(f"bench_{name}.txt", data) for name, data in BENCH_TEMPLATES.files()]
    digest = hashlib.sha256()
    for name, data in sorted(files):
        digest.update(name.encode() + b"\0" + data)
    return digest.hexdigest()[:16]


# -- the authors' prompts.yaml, as data -----------------------------------------------------------

_ALLOWED_FIELDS = frozenset({
    "program_1_code", "program_2_code", "true_label", "false_label", "def_in", "live_out", "problem_html",
})


def _format_restricted(template: str, values: Mapping[str, str], where: str) -> str:
    """``str.format`` limited to plain names from ``values`` ({{ and }} are braces)."""
    out: list[str] = []
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as error:
        raise LoadError(f"{where}: not a format string: {error}") from None
    for literal, name, spec, conversion in parsed:
        out.append(literal)
        if name is None:
            continue
        if name not in _ALLOWED_FIELDS or spec or conversion:
            raise LoadError(f"{where}: placeholder {{{name}}} is not one of {', '.join(sorted(_ALLOWED_FIELDS))}")
        out.append(values.get(name, ""))
    return "".join(out)


@dataclass(frozen=True)
class EquiBenchAuthorsPrompts:
    """The authors' prompt file: templates by (config name, style key), and the answer words."""

    path: Path
    templates: Mapping[tuple[str, str], str]
    true_label: str = "YES"
    false_label: str = "NO"
    true_keywords: tuple[str, ...] = ("YES",)
    false_keywords: tuple[str, ...] = ("NO",)
    digest: str = field(default="")

    @property
    def answer_format(self) -> AnswerFormat:
        yes = tuple(dict.fromkeys((self.true_label, *self.true_keywords)))
        no = tuple(dict.fromkeys((self.false_label, *self.false_keywords)))
        return AnswerFormat(yes=yes, no=no)

    def prompt(self, pair: Pair, style: PromptStyle) -> str:
        key = (pair.category.config_name, style.authors_key)
        template = self.templates.get(key)
        if template is None:
            raise InvalidArgument(f"{self.path}: no {key[1]} prompt for {key[0]}")
        values = {
            "program_1_code": pair.program_1, "program_2_code": pair.program_2,
            "true_label": self.true_label, "false_label": self.false_label,
            "def_in": " ".join(pair.def_in), "live_out": " ".join(pair.live_out),
            "problem_html": pair.problem_html,
        }
        return _format_restricted(template, values, f"{self.path} {key[0]}.{key[1]}")


def load_authors_prompts(path: Path | str) -> EquiBenchAuthorsPrompts:
    """Read and check the authors' ``prompts.yaml`` (every template is test-formatted once)."""
    file = Path(path)
    try:
        import yaml
    except ImportError:
        raise MissingExtra("--prompts reads YAML with PyYAML: pip install 'divergent[bench]'") from None
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise LoadError(f"{file}: cannot read it: {error}") from None
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise LoadError(f"{file}: not YAML: {error}") from None
    if not isinstance(document, dict):
        raise LoadError(f"{file}: expected a mapping of categories to prompts")
    templates: dict[tuple[str, str], str] = {}
    for category in Category:
        section = document.get(category.config_name)
        if section is None:
            continue
        if not isinstance(section, dict):
            raise LoadError(f"{file}: {category.config_name} must map ZERO/FEW/ZERO_COT/FEW_COT to text")
        for style in PromptStyle:
            template = section.get(style.authors_key)
            if template is None:
                continue
            if not isinstance(template, str):
                raise LoadError(f"{file}: {category.config_name}.{style.authors_key} must be text")
            _format_restricted(template, {}, f"{file} {category.config_name}.{style.authors_key}")
            templates[(category.config_name, style.authors_key)] = template
    if not templates:
        raise LoadError(f"{file}: no prompts for any of DCE, TVM, STOKE, OJ_A, OJ_V, OJ_VA")

    def words(name: str, default: tuple[str, ...]) -> tuple[str, ...]:
        value = document.get(name, list(default))
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise LoadError(f"{file}: {name} must be a list of words")
        return tuple(v.strip() for v in value)

    true_label = str(document.get("true_label", "YES")).strip()
    false_label = str(document.get("false_label", "NO")).strip()
    return EquiBenchAuthorsPrompts(
        path=file, templates=templates, true_label=true_label, false_label=false_label,
        true_keywords=words("true_keywords", (true_label,)), false_keywords=words("false_keywords", (false_label,)),
        digest=hashlib.sha256(text.encode()).hexdigest()[:16],
    )


def build_messages(pair: Pair, style: PromptStyle, authors: EquiBenchAuthorsPrompts | None = None) -> list[Message]:
    """The chat messages that ask the judge about ``pair`` (one user message, as the authors sent)."""
    content = authors.prompt(pair, style) if authors is not None else our_prompt(pair, style)
    return [{"role": "user", "content": content}]


def describe_prompts(authors: EquiBenchAuthorsPrompts | None) -> dict[str, Any]:
    """What identifies the prompts of a run (part of its stored parameters)."""
    if authors is None:
        return {"prompts": "divergent", "prompts_sha256": _our_templates_digest()}
    return {"prompts": str(authors.path.resolve()), "prompts_sha256": authors.digest}
