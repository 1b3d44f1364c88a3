"""DVC stage `adversarial_generate`: see lingtest.pipeline.adversarial.generate."""

from lingtest.pipeline.adversarial import generate
from lingtest.pipeline.runner import main

if __name__ == "__main__":
    main("adversarial_generate", generate)
