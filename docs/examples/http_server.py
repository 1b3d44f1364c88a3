"""A system under test behind HTTP, in lingtest's protocol: ``POST {"task": TASK, "inputs": [...]}`` is
answered with ``{"outputs": [...]}``, one output per input in the task's JSON form (an entry may be
``{"error": "reason"}`` for an input the model could not handle). It serves the toy systems of
:mod:`docs.examples.models`:

    python docs/examples/http_server.py --port 8765 &
    lingtest run s2lct-hatexplain@1.0.0 --system http://127.0.0.1:8765/ --out runs/http
"""

from __future__ import annotations

import argparse
import importlib.util
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

_spec = importlib.util.spec_from_file_location("example_models", Path(__file__).with_name("models.py"))
assert _spec is not None and _spec.loader is not None
models = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(models)

BY_TASK = {"classification": models.classify, "ner": models.tag, "coref": models.resolve,
           "contrastive": models.score}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body: dict[str, Any] = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        predict = BY_TASK.get(body.get("task", ""))
        if predict is None:
            self.send_error(400, f"unknown task {body.get('task')!r}")
            return
        answer = json.dumps({"outputs": predict(body["inputs"])}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8765)
    args = ap.parse_args()
    ThreadingHTTPServer((args.host, args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
