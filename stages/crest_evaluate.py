"""DVC entry point: CREST evaluate (lingtest.pipeline.crest.evaluate)."""

from lingtest.pipeline.crest import evaluate
from lingtest.pipeline.runner import main

if __name__ == "__main__":
    main("crest_evaluate", evaluate)
