"""Hand-written inputs for the sentence-level conventions of errant and gleu against gec-metrics
(tests/metrics/test_sentence_scores.py): sources, references (two sets), systems."""

SRC = ["He go to school .", "This is fine .", "She like apples .", "I am here .", "They was there .",
       "A cat sat on mat .", "Go ."]
REF0 = ["He goes to school .", "This is fine .", "She likes apples .", "I am here now .", "They were there .",
        "A cat sat on the mat .", "Go !"]
REF1 = ["He went to school .", "This is fine .", "She liked apples .", "I am here .", "They were here .",
        "The cat sat on a mat .", "Go ."]
SYSTEMS = {
    "source": SRC,
    "ref0": REF0,
    "mixed": ["He goes to the school .", "This is fine !", "She likes apple .", "I am here .", "They were there .",
              "A cat sat on the the mat .", "Go"],
    "empty": [""] * len(SRC),
}
