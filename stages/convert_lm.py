"""DVC stage `convert_lm`: see lingtest.pipeline.models."""

from lingtest.pipeline.models import convert_lm_stage
from lingtest.pipeline.runner import main

if __name__ == "__main__":
    main("convert_lm", convert_lm_stage)
