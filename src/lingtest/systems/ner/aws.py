"""Amazon Comprehend ``DetectEntities`` (boto3 ``comprehend.detect_entities``), the paper's AWS
system.

Credentials and region come from boto3's usual sources (``$AWS_ACCESS_KEY_ID``,
``$AWS_SECRET_ACCESS_KEY``, ``$AWS_SESSION_TOKEN``, ``$AWS_DEFAULT_REGION``, ``~/.aws``), never from a
lingtest config; the ``region`` option overrides the region. boto3 is not a lingtest dependency
(``pip install boto3``); it is imported only when the first request is made, and botocore's own
retry policy handles throttling. Each sentence is one ``DetectEntities`` call on its tokens joined
by spaces; the label of an entity is its ``Type`` (``PERSON``, ``LOCATION``, ``ORGANIZATION``,
``COMMERCIAL_ITEM``, ``EVENT``, ``DATE``, ``QUANTITY``, ``TITLE``, ``OTHER``), and ``BeginOffset`` /
``EndOffset`` are code-point offsets with an exclusive end. :func:`parse_response` is what the tests
exercise on recorded responses.
"""

from __future__ import annotations

from typing import Any

from lingtest.data.model import Entity
from lingtest.errors import InputError, MissingResourceError, SystemFailure
from lingtest.systems.ner.base import NERSystem, Tokens
from lingtest.systems.ner.cloud import CharEntity, char_entities_to_tokens
from lingtest.systems.ner.spans import join_tokens

MAX_BYTES = 100_000  # DetectEntities' limit on the UTF-8 size of one text


def parse_response(payload: Any) -> list[CharEntity]:
    """The character entities of one ``DetectEntities`` response; a response of the wrong shape
    raises :class:`InputError` naming the field."""
    if not isinstance(payload, dict) or not isinstance(payload.get("Entities"), list):
        raise InputError("expected an object with an 'Entities' list", field="Entities")
    out = []
    for k, e in enumerate(payload["Entities"]):
        where = f"Entities[{k}]"
        if not isinstance(e, dict) or not isinstance(e.get("Type"), str) or not e["Type"]:
            raise InputError("expected an entity object with a 'Type'", field=where)
        b, end, score = e.get("BeginOffset"), e.get("EndOffset"), e.get("Score", 0.0)
        for name, v in (("BeginOffset", b), ("EndOffset", end)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise InputError(f"expected an integer, got {v!r}", field=f"{where}.{name}")
        if isinstance(score, bool) or not isinstance(score, int | float):
            raise InputError(f"expected a number, got {score!r}", field=f"{where}.Score")
        text = e.get("Text")
        assert isinstance(b, int) and isinstance(end, int)  # checked above
        out.append(CharEntity(b, end, e["Type"], float(score), text if isinstance(text, str) else None))
    return out


class AWSComprehendNERSystem(NERSystem):
    """Amazon Comprehend's built-in entity recogniser. ``language_code``: the texts' language (``en``);
    ``region``: the AWS region (``None``: boto3's configured region). ``client``: a
    ``comprehend`` client (tests; default: ``boto3.client("comprehend", region_name=region)``)."""

    name = "aws_comprehend"
    version = "1"
    label_scheme = "aws"

    def __init__(self, *, language_code: str, region: str | None = None, client: Any = None) -> None:
        self.language_code = language_code
        self.region = region
        self._client = client

    def config(self) -> dict[str, Any]:
        return {"language_code": self.language_code}

    def _load(self) -> Any:
        if self._client is None:
            try:
                import boto3
            except ImportError as exc:
                raise MissingResourceError(f"boto3 is not installed ({exc}); `pip install boto3`") from exc
            self._client = boto3.client("comprehend", region_name=self.region)
        return self._client

    def predict(self, inputs: list[Tokens]) -> list[list[Entity]]:
        if not inputs:
            return []
        client = self._load()
        out = []
        for i, tokens in enumerate(inputs):
            text = join_tokens(tokens)[0]
            if len(text.encode("utf-8")) > MAX_BYTES:
                raise SystemFailure(f"sentence {i} is longer than DetectEntities' {MAX_BYTES} bytes")
            try:
                payload = client.detect_entities(Text=text, LanguageCode=self.language_code)
            except Exception as exc:  # botocore's ClientError / NoCredentialsError / EndpointConnectionError
                raise SystemFailure(f"AWS Comprehend detect_entities failed on sentence {i}: {exc}") from exc
            out.append(char_entities_to_tokens(tokens, parse_response(payload), f"sentence {i}: Entities"))
        return out
