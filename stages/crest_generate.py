"""DVC entry point: CREST generate (lingtest.pipeline.crest.generate)."""

from lingtest.pipeline.crest import generate
from lingtest.pipeline.runner import main

if __name__ == "__main__":
    main("crest_generate", generate)
