"""The trainable neural coreference resolver's DVC stages (training, and Chai et al.'s adversarial-training
experiment): :mod:`.stages` and :mod:`.report`; the model lives in :mod:`lingtest.systems.coref.neural`."""
