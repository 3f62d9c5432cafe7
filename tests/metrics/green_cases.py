"""Hand-written GREEN inputs (edge cases) for the fixtures and the differential test against gec-metrics. Each case:
(name, config (gec-metrics' GREEN.Config fields), sources, systems (lists of hypotheses), references (per reference
set))."""

# gec-metrics' own test sentences (gec_metrics/metrics/green_test.py)
SRCS = ["This sentences contain gramamtical error .", "This is a sentence .", "This is no change .",
        "I bought a pen to write a letter to a friend ."]
HYPS = ["This sentence contains a grammatical error .", "the sentence was corrected into completely different one .",
        "This is no change .", "I bought a pen to write a letter to a friend ."]
REFS = [["This sentence contains a gramamtical error .", "dummy sentence .", "This is no change .",
         "I bought a pen to write a letter to the friend ."],
        ["These sentences contain grammatical errors .", "another dummy sentence .", "This is no change .",
         "I bought a pen to write the letter to the friend ."]]

EDGE_SRC = ["the the the cat sat", "A b", "", "He go to school .", "  spaced  out  tokens ", "tab\tinside here .",
            "Short .", "No edits at all here ."]
EDGE_REF1 = ["the cat sat", "A b c", "Something .", "He goes to school .", "spaced out tokens", "tab inside here .",
             "Short !", "No edits at all here ."]
EDGE_REF2 = ["the the cat sat down", "", "Something else .", "He went to school .", "spaced  out tokens .",
             "tab\tinside here", "Short .", "No edits at all here ."]
EDGE_REF3 = ["cat sat", "A b", "", "He go to the school .", "spaced out", "tab inside here .", "Short", "No edits ."]
EDGE_SYSTEMS = [
    EDGE_SRC,                                                   # no edits: the source itself
    [""] * len(EDGE_SRC),                                       # empty hypotheses
    EDGE_REF1,                                                  # a reference itself
    ["the the cat cat sat", "b A", "Something", "He goes to to school .", " spaced out tokens", "tab inside here .",
     "Short . .", "No edits at all here"],
    ["cat", "A  b", "x", "He go school .", "spaced  out  tokens", "tab inside\there .", "Short .", "No edits at all ."],
]

CHAR_SRC = ["Ich habe ein Hund.", "我爱北京天安门", "naïve café", "  ", "aaaa"]
CHAR_REF1 = ["Ich habe einen Hund.", "我爱北京天安门。", "naive cafe", "x", "aaa"]
CHAR_REF2 = ["Ich hatte einen Hund.", "我喜欢北京天安门", "naïve café.", "", "aaaaa"]
CHAR_SYSTEMS = [CHAR_SRC, ["Ich habe einen Hund.", "我爱北京", "naïve  café", "y", "aa aa"], [""] * 5]

CASES = [
    ("gec-metrics test, beta 0.5", {"beta": 0.5}, SRCS, [HYPS], REFS),
    ("gec-metrics test, beta 2", {"beta": 2.0}, SRCS, [HYPS], REFS),
    ("gec-metrics test, one reference", {}, SRCS, [HYPS], REFS[:1]),
    ("edge cases, three references", {}, EDGE_SRC, EDGE_SYSTEMS, [EDGE_REF1, EDGE_REF2, EDGE_REF3]),
    ("edge cases, one reference", {}, EDGE_SRC, EDGE_SYSTEMS, [EDGE_REF2]),
    ("edge cases, n 2 beta 1", {"n": 2, "beta": 1.0}, EDGE_SRC, EDGE_SYSTEMS, [EDGE_REF1, EDGE_REF2]),
    ("edge cases, n 6", {"n": 6}, EDGE_SRC, EDGE_SYSTEMS, [EDGE_REF1, EDGE_REF3]),
    ("characters", {"unit": "char"}, CHAR_SRC, CHAR_SYSTEMS, [CHAR_REF1, CHAR_REF2]),
    ("characters, beta 0.5", {"unit": "char", "beta": 0.5}, CHAR_SRC, CHAR_SYSTEMS, [CHAR_REF2]),
]
