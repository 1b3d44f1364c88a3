"""DVC stage `parse@<dataset>`: see lingtest.pipeline.data.parse_stage."""

from lingtest.pipeline.data import parse_stage
from lingtest.pipeline.runner import main

if __name__ == "__main__":
    main("parse", parse_stage)
