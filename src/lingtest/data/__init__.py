"""The shared data model and its serialisation."""

from lingtest.data.io import atomic_open, read_jsonl, write_json, write_jsonl
from lingtest.data.model import (
    SCHEMA_VERSION,
    Cluster,
    ContrastiveExample,
    Document,
    Entity,
    Mention,
    Provenance,
    Sentence,
    TestCase,
    Token,
    Tree,
    clusters_as_spans,
    stable_id,
)

__all__ = [
    "SCHEMA_VERSION", "Cluster", "ContrastiveExample", "Document", "Entity", "Mention", "Provenance",
    "Sentence", "TestCase", "Token", "Tree", "atomic_open", "clusters_as_spans", "read_jsonl",
    "stable_id", "write_json", "write_jsonl",
]
