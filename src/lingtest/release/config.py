"""The release tools' configuration (``conf/release/default.yaml``, ``cfg.release``), typed: every key a
field, no defaults here, unknown keys rejected."""

from __future__ import annotations

from lingtest.config import Block, Section


class Licence(Block):
    """A source corpus's licence: its Hugging Face ``license`` id, a note for the card, and whether a
    release may carry the corpus's text (``redistribute``)."""

    id: str
    redistribute: bool
    note: str


class Paper(Block):
    title: str
    authors: str
    venue: str


class SourcesRelease(Block):
    """A technique that generates its cases for each system under test: its release holds the sources
    (``file``, the pipeline's) and names the registered ``generator`` that ``lingtest run`` calls;
    ``candidates`` (made by the DVC stage ``candidates_stage``) is where withheld source text is found."""

    name: str
    file: str
    generator: str
    candidates: str
    candidates_stage: str


class RecipeRelease(Block):
    """A folder of files released as a recipe: the path, sha256 and size of each file and the DVC stage
    that makes them (for files too large for git or not redistributable)."""

    path: str
    technique: str


class ReleaseConfig(Section):
    section = "release"

    dir: str
    split: str
    licenses: dict[str, Licence]
    corpora: dict[str, str]
    sources: dict[str, SourcesRelease]
    recipes: dict[str, RecipeRelease]
    papers: dict[str, Paper]
