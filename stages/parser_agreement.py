"""DVC stage `parser_agreement`: see lingtest.pipeline.parser_agreement."""

from lingtest.pipeline.parser_agreement import agreement_stage
from lingtest.pipeline.runner import main

if __name__ == "__main__":
    main("parser_agreement", agreement_stage)
