"""Run errant's own errant_parallel (errant.commands.parallel_to_m2) as the oracle, with a given spaCy pipeline.

errant.load("en") insists on the package name en_core_web_sm; here it gets the same pipeline under the name that is
installed. Usage: python tests/errant_oracle.py [--spacy-model NAME] -orig ... -cor ... -out ... [errant flags]"""
import sys

import errant
import spacy
from errant.commands import parallel_to_m2


def run(argv, model=None):
    from peet_fast.en.parse import default_model_name

    model = model or default_model_name()
    real_load = errant.load

    def load(lang, nlp=None):
        return real_load(lang, nlp or spacy.load(model, disable=["ner"]))

    saved = sys.argv
    errant.load = load
    sys.argv = ["errant_parallel", *argv]
    try:
        parallel_to_m2.main()
    finally:
        errant.load = real_load
        sys.argv = saved


if __name__ == "__main__":
    args = sys.argv[1:]
    model = None
    if args[:1] == ["--spacy-model"]:
        model, args = args[1], args[2:]
    run(args, model)
