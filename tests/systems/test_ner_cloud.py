"""Azure and AWS NER adapters: request building, response parsing and character-offset -> token-span
conversion on response JSON in the services' documented shapes (tests/fixtures/ner_systems), with stand-in
transports; no credentials and no network."""

from __future__ import annotations

import copy
import json

import pytest

from lingtest.data.model import Entity
from lingtest.errors import InputError, MissingResourceError, SystemFailure
from lingtest.systems.ner import azure as azure_mod
from lingtest.systems.ner.aws import AWSComprehendNERSystem
from lingtest.systems.ner.aws import parse_response as parse_aws
from lingtest.systems.ner.azure import AzureNERSystem, build_request
from lingtest.systems.ner.azure import parse_response as parse_azure


@pytest.fixture(scope="module")
def azure_rec(fixtures_dir):
    path = fixtures_dir / "ner_systems" / "azure_entities_general_v3.1.json"
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def aws_rec(fixtures_dir):
    return json.loads((fixtures_dir / "ner_systems" / "aws_detect_entities.json").read_text(encoding="utf-8"))


def tokens_of(request_body):
    return [d["text"].split(" ") for d in request_body["documents"]]


EXPECTED_AZURE = [
    [Entity(0, 2, "Person"), Entity(3, 5, "Person"), Entity(6, 7, "Location"), Entity(8, 9, "DateTime")],
    # the Address (0.71) overlaps Redmond (0.93): the higher score wins, the rest of the address goes
    [Entity(0, 1, "Organization"), Entity(9, 10, "Location"), Entity(12, 13, "DateTime")],
    [Entity(0, 2, "Person"), Entity(4, 6, "Location")],
]


# ---------------------------------------------------------------------------------------------- Azure
class FakeResponse:
    def __init__(self, status, payload=None, headers=None):
        self.status_code = status
        self._payload = payload
        self.headers = headers or {}
        self.text = json.dumps(payload) if payload is not None else "busy"

    def json(self):
        return self._payload


class FakeSession:
    """Answers ``post`` from a list of responses and records every request."""

    def __init__(self, *responses):
        self.responses = list(responses)
        self.requests = []

    def post(self, url, *, params, json, headers, timeout):
        self.requests.append({"url": url, "params": params, "json": copy.deepcopy(json), "headers": headers,
                              "timeout": timeout})
        return self.responses.pop(0)


def azure_system(session, **over):
    opts = dict(endpoint="https://myres.cognitiveservices.azure.com/", language="en",
                model_version="2021-06-01", documents_per_request=5, timeout_s=30, max_retries=2,
                backoff_s=1.0, max_backoff_s=30.0, session=session)
    return AzureNERSystem(**{**opts, **over})


def test_azure_request_is_the_documented_one(azure_rec):
    params, body = build_request([d["text"] for d in azure_rec["request"]["documents"]], language="en",
                                 model_version="2021-06-01")
    assert body == azure_rec["request"]
    assert params == {"model-version": "2021-06-01", "stringIndexType": "UnicodeCodePoint",
                      "showStats": "false"}


def test_azure_parse_and_convert(azure_rec):
    found = parse_azure(azure_rec["response"], 3)  # documents come back out of order
    assert [e.label for e in found[1]] == ["Organization", "Address", "Location", "DateTime"]
    assert found[2][0].text == "Zoë Ångström" and found[2][0].begin == 0 and found[2][0].end == 12
    from lingtest.systems.ner.cloud import char_entities_to_tokens

    toks = tokens_of(azure_rec["request"])
    assert [char_entities_to_tokens(t, f, "x") for t, f in zip(toks, found, strict=True)] == EXPECTED_AZURE


def test_azure_predict_end_to_end_with_a_stand_in_session(azure_rec, monkeypatch):
    monkeypatch.setenv("AZURE_LANGUAGE_KEY", "secret-key")
    session = FakeSession(FakeResponse(200, azure_rec["response"]))
    system = azure_system(session)
    assert system.predict(tokens_of(azure_rec["request"])) == EXPECTED_AZURE
    (req,) = session.requests
    assert req["url"] == "https://myres.cognitiveservices.azure.com/text/analytics/v3.1/entities/recognition/general"
    assert req["headers"]["Ocp-Apim-Subscription-Key"] == "secret-key"
    assert req["json"] == azure_rec["request"] and req["params"]["stringIndexType"] == "UnicodeCodePoint"
    assert system.config() == {"language": "en", "model_version": "2021-06-01"}  # no key, no endpoint


def test_azure_batches_retries_and_fails_loudly(azure_rec, monkeypatch):
    monkeypatch.setenv("AZURE_LANGUAGE_KEY", "k")
    monkeypatch.setattr(azure_mod.time, "sleep", lambda s: None)
    toks = tokens_of(azure_rec["request"])
    first_two = {"documents": [d for d in azure_rec["response"]["documents"] if d["id"] in "01"],
                 "errors": []}
    last = {"documents": [dict(d, id="0") for d in azure_rec["response"]["documents"] if d["id"] == "2"],
            "errors": []}
    session = FakeSession(FakeResponse(429, headers={"Retry-After": "1"}), FakeResponse(200, first_two),
                          FakeResponse(200, last))
    assert azure_system(session, documents_per_request=2).predict(toks) == EXPECTED_AZURE
    assert [len(r["json"]["documents"]) for r in session.requests] == [2, 2, 1]  # the 429 was retried
    with pytest.raises(SystemFailure, match="HTTP 503"):
        azure_system(FakeSession(*[FakeResponse(503)] * 3)).predict(toks)
    with pytest.raises(SystemFailure, match="HTTP 401"):
        azure_system(FakeSession(FakeResponse(401, {"error": {"code": "401"}}))).predict(toks)


def test_azure_waits_are_capped_and_follow_retry_after(azure_rec, monkeypatch):
    monkeypatch.setenv("AZURE_LANGUAGE_KEY", "k")
    waits: list[float] = []
    monkeypatch.setattr(azure_mod.time, "sleep", waits.append)
    toks = tokens_of(azure_rec["request"])
    ok = FakeResponse(200, azure_rec["response"])
    # an hour asked for, an unreadable value, an HTTP date in the past, then seconds within the cap
    session = FakeSession(FakeResponse(429, headers={"Retry-After": "3600"}),
                          FakeResponse(503, headers={"Retry-After": "soon"}),
                          FakeResponse(429, headers={"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}),
                          FakeResponse(429, headers={"Retry-After": "2.5"}), ok)
    assert azure_system(session, max_retries=4, max_backoff_s=30.0).predict(toks) == EXPECTED_AZURE
    assert waits == [30.0, 2.0, 0.0, 2.5]  # capped; backoff 1*2**1 for the unreadable one
    waits.clear()

    class Refused:
        requests: list = []

        def post(self, *a, **k):
            raise ConnectionError("refused")

    with pytest.raises(SystemFailure, match="refused"):
        azure_system(Refused(), max_retries=3, backoff_s=4.0, max_backoff_s=10.0).predict(toks)
    assert waits == [4.0, 8.0, 10.0]
    with pytest.raises(ValueError, match="backoff_s"):
        azure_system(FakeSession(), backoff_s=5.0, max_backoff_s=1.0)


def test_azure_document_errors_and_bad_responses(fixtures_dir, azure_rec):
    err = json.loads((fixtures_dir / "ner_systems" / "azure_entities_general_v3.1_error.json").read_text())
    with pytest.raises(SystemFailure, match="document '1'.*InvalidDocument"):
        parse_azure(err, 2)
    with pytest.raises(InputError, match="no result for document"):
        parse_azure({"documents": [], "errors": []}, 1)
    bad = copy.deepcopy(azure_rec["response"])
    bad["documents"][0]["entities"][0]["offset"] = "0"
    with pytest.raises(InputError, match=r"documents\[0\].entities\[0\].offset"):
        parse_azure(bad, 3)
    # grapheme offsets (the service's default) would not match the text: an error, not a shifted span
    from lingtest.systems.ner.cloud import CharEntity, char_entities_to_tokens

    decomposed = ["Zoe\u0308", "Berg"]  # 3 graphemes but 4 code points: Berg is at grapheme 4, code point 5
    assert char_entities_to_tokens(decomposed, [CharEntity(5, 9, "Person", 0.9, "Berg")], "e") == \
        [Entity(1, 2, "Person")]
    with pytest.raises(InputError, match="differs from the text at its offsets"):
        char_entities_to_tokens(decomposed, [CharEntity(4, 8, "Person", 0.9, "Berg")], "e")
    with pytest.raises(InputError, match="outside"):
        char_entities_to_tokens(["Ann"], [CharEntity(2, 9, "Person", 0.9, None)], "e")


def test_azure_credentials_come_from_the_environment(monkeypatch):
    monkeypatch.delenv("AZURE_LANGUAGE_KEY", raising=False)
    monkeypatch.delenv("AZURE_LANGUAGE_ENDPOINT", raising=False)
    with pytest.raises(MissingResourceError, match=r"\$AZURE_LANGUAGE_KEY"):
        azure_system(FakeSession()).predict([["Ann"]])
    monkeypatch.setenv("AZURE_LANGUAGE_KEY", "k")
    with pytest.raises(MissingResourceError, match=r"\$AZURE_LANGUAGE_ENDPOINT"):
        azure_system(FakeSession(), endpoint=None).predict([["Ann"]])
    with pytest.raises(ValueError, match="documents_per_request"):
        azure_system(FakeSession(), documents_per_request=6)


# ------------------------------------------------------------------------------------------------ AWS
class FakeComprehend:
    def __init__(self, responses):
        self.responses = list(responses)
        self.calls = []

    def detect_entities(self, *, Text, LanguageCode):  # noqa: N803 (boto3's parameter names)
        self.calls.append((Text, LanguageCode))
        return self.responses.pop(0)


def test_aws_parse_convert_and_predict(aws_rec):
    parsed = parse_aws(aws_rec["responses"][0])
    assert [(e.begin, e.end, e.label) for e in parsed][:2] == [(0, 13, "PERSON"), (18, 31, "PERSON")]
    client = FakeComprehend(aws_rec["responses"])
    system = AWSComprehendNERSystem(language_code="en", client=client)
    out = system.predict([t.split(" ") for t in aws_rec["requests"]])
    assert [c[0] for c in client.calls] == aws_rec["requests"] and {c[1] for c in client.calls} == {"en"}
    assert out == [
        [Entity(0, 2, "PERSON"), Entity(3, 5, "PERSON"), Entity(6, 7, "LOCATION"), Entity(8, 9, "DATE")],
        [Entity(0, 1, "ORGANIZATION"), Entity(5, 10, "LOCATION"), Entity(12, 13, "DATE")],
        [Entity(0, 2, "PERSON"), Entity(4, 6, "LOCATION")],
    ]
    assert system.config() == {"language_code": "en"} and system.label_scheme == "aws"


def test_aws_bad_responses_and_failures(aws_rec):
    bad = copy.deepcopy(aws_rec["responses"][0])
    bad["Entities"][1]["EndOffset"] = None
    with pytest.raises(InputError, match=r"Entities\[1\].EndOffset"):
        parse_aws(bad)
    with pytest.raises(InputError, match="'Entities' list"):
        parse_aws({"ResponseMetadata": {}})

    class Down:
        def detect_entities(self, **_):
            raise RuntimeError("Unable to locate credentials")

    with pytest.raises(SystemFailure, match="sentence 0: Unable to locate credentials"):
        AWSComprehendNERSystem(language_code="en", client=Down()).predict([["Ann"]])
