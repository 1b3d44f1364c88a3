"""DVC stage `adversarial_overlap`: see lingtest.pipeline.adversarial.overlap."""

from lingtest.pipeline.adversarial import overlap
from lingtest.pipeline.runner import main

if __name__ == "__main__":
    main("adversarial_overlap", overlap)
